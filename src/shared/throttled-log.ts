/**
 * A log that says the same thing at most once per interval (an outage ends every connection, or fails
 * every request, at once), counting what it held back: "… (and 12 more since)".
 */
export function throttled(
  log: (message: string) => void,
  intervalMs: number,
  heldBack = 'more since',
): (message: string) => void {
  let last = 0;
  let held = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < intervalMs) return void held++;
    log(held > 0 ? `${message} (and ${held} ${heldBack})` : message);
    last = now;
    held = 0;
  };
}
