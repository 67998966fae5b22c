import { createHmac } from 'node:crypto';
import { formatSignatureHeader, signedPayload } from '../shared/signature.ts';

export const hmacHex = (secret: string, payload: string) => createHmac('sha256', secret).update(payload, 'utf8').digest('hex');

/** Signs a body for one attempt: one v1 per live secret, newest first (SPEC §5.2). */
export function signatureHeader(secrets: readonly string[], body: string, timestamp: number): string {
  const payload = signedPayload(timestamp, body);
  return formatSignatureHeader(timestamp, secrets.map((s) => hmacHex(s, payload)));
}
