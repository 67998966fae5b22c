import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { describeFailure, type Client } from './client.ts';
import { CliError } from './errors.ts';

/**
 * A request whose answer may be long (a sandbox file, a HAR): --timeout bounds the wait for the
 * answer to begin, not its transfer. Failures are one-line CliErrors.
 */
export async function longRequest(
  client: Client,
  method: string,
  path: string,
  init: { body?: RequestInit['body']; headers?: Record<string, string> } = {},
): Promise<Response> {
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new DOMException('timed out', 'TimeoutError')),
    client.connection.timeoutMs,
  );
  try {
    const res = await client.fetch(path, {
      method,
      body: init.body,
      headers: { ...client.authHeaders(), ...init.headers },
      signal: abort.signal,
    });
    if (!res.ok) {
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw new CliError(describeFailure(res.status, parsed));
    }
    return res;
  } catch (err) {
    if (abort.signal.aborted && !(err instanceof CliError)) throw client.timedOut(method, path);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Streams an answer's body into `out` (through out.part, so a broken transfer leaves no half file); resolves to its
 * size.
 */
export async function saveBody(res: Response, out: string): Promise<number> {
  const part = `${out}.part`;
  let bytes = 0;
  try {
    const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    body.on('data', (c: Buffer) => (bytes += c.length));
    await pipeline(body, createWriteStream(part));
    await rename(part, out);
    return bytes;
  } catch (err) {
    await rm(part, { force: true });
    throw new CliError(`could not write ${out}: ${(err as Error).message}`);
  }
}

/** 1.2 MB, 340 kB, 12 B. */
export const formatBytes = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${Math.round(n / 1e3)} kB` : `${n} B`;
