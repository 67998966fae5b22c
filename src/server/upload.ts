import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../shared/problem.ts';

/** What the import route reads by default: far above a full sandbox (10,000 deliveries compress to a few MB). */
export const defaultMaxImportBytes = 256 * 2 ** 20;

const tooLarge = (limit: number) =>
  new ApiError(
    413,
    'payload_too_large',
    `The upload is over the import limit of ${limit} bytes (${Math.round(limit / 2 ** 20)} MiB). Nothing was imported.`,
    {
      extra: { limit },
    },
  );

/** Past this many bytes over the limit an oversized upload is cut off instead of read to its end. */
const maxDrainBytes = 64 * 2 ** 20;

/**
 * Streams a request body into a file, refusing it (413) as soon as it is over `limit` bytes, by its
 * Content-Length before a byte is read, else by counting; memory holds one chunk at a time. Counted
 * over the limit, the rest of the body is read and dropped (up to 64 MiB more) before the 413 goes
 * out: a server that answered and closed while the client still sent would reset the connection, and
 * the client would never read why.
 */
export async function spoolBody(req: IncomingMessage, path: string, limit: number): Promise<number> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge(limit);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limit + maxDrainBytes) return done(tooLarge(limit));
      done(null, size > limit ? undefined : chunk);
    },
  });
  try {
    await pipeline(req, counter, createWriteStream(path));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(
      400,
      'upload_incomplete',
      'The upload ended early: the connection closed before the whole file arrived. Nothing was imported.',
    );
  }
  if (size > limit) throw tooLarge(limit);
  return size;
}
