import { createHmac } from 'node:crypto';
import { formatSignatureHeader } from '../shared/signature.ts';

/**
 * The v1 signature (SPEC §5.2): lowercase hex HMAC-SHA256 of "<t>.<raw body>" with the UTF-8 secret.
 * The engine signs with it and verifyWebhook checks with it, so the two cannot drift apart. A body
 * given as bytes is hashed as those bytes: decoding it first could alter invalid UTF-8.
 */
export const v1Signature = (secret: string, timestamp: number, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest('hex');

/** Signs a body for one attempt: one v1 per live secret, newest first (SPEC §5.2). */
export function signatureHeader(secrets: readonly string[], body: string, timestamp: number): string {
  return formatSignatureHeader(
    timestamp,
    secrets.map((s) => v1Signature(s, timestamp, body)),
  );
}
