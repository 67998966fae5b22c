/**
 * Reads `read` until `done` holds of what it returns, and returns that (work on the real clock, a poll or a job,
 * finishes a moment after the request that caused it); fails naming `what` and the last value after `timeoutMs`.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} never happened: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
