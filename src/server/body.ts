import type { IncomingMessage } from 'node:http';
import { ApiError } from '../shared/problem.ts';
import { describeJsonSyntaxError } from './json-syntax.ts';
import { refuseUnstorable } from './validate.ts';

const maxBodyBytes = 1024 * 1024;

export type BodyKind = 'json' | 'form';

/** Reads the raw body, refusing anything over 1 MiB before buffering it all. */
export async function readRawBody(req: IncomingMessage, limit = maxBodyBytes): Promise<Buffer> {
  const tooLarge = () => new ApiError(413, 'payload_too_large', `Request bodies are limited to ${limit} bytes.`);
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // The client went away mid-body: a truncated body, not a server failure worth a stack in the log.
    throw new ApiError(
      400,
      'malformed_json',
      'The request body ended early: the connection closed before it was complete.',
    );
  }
  return Buffer.concat(chunks);
}

/** A request's media type, lower case, without parameters ('' when it names none). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

const isJsonType = (type: string) => type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);

/**
 * Decodes a request body into a plain object. An empty body reads as {} (SPEC §2), so
 * `curl -X POST` works without -d; anything else must be a JSON object (or, where the
 * route accepts it, an HTML form).
 */
export function decodeBody(raw: Buffer, req: IncomingMessage, accepts: readonly BodyKind[]): Record<string, unknown> {
  if (raw.length === 0) return {};
  const type = mediaType(req);
  if (accepts.includes('form') && type === 'application/x-www-form-urlencoded') {
    const form = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
    refuseUnstorable(form, 'body'); // forms skip the schema check that does this for JSON
    return form;
  }
  if (!isJsonType(type)) {
    const expected = accepts
      .map((k) => (k === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'))
      .join(' or ');
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Send the body as ${expected}${type ? `, not ${type}` : ' (Content-Type is missing)'}.`,
    );
  }
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ApiError(
      400,
      'malformed_json',
      `The body is not valid JSON: ${describeJsonSyntaxError(text, (err as Error).message)}.`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'malformed_json', 'The body must be a JSON object.');
  }
  if (depthOf(parsed) > maxJsonDepth) {
    throw new ApiError(400, 'malformed_json', `The body is nested more than ${maxJsonDepth} levels deep.`);
  }
  return parsed as Record<string, unknown>;
}

/** No request needs more; deeper documents would overflow the stack of recursive code (hashing, validation). */
const maxJsonDepth = 64;

/** How deeply a parsed JSON value nests, found without recursion. */
function depthOf(root: object): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > maxJsonDepth) break;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}
