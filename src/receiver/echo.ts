import { createHash } from 'node:crypto';
import { v1Signature } from './sign.ts';

// Bodies up to this size travel in the echo itself; larger ones by length and hash alone.
const echoedBodyBytes = 4096;

/**
 * The Sandbay-Echo header value for what a receiver verified: the bytes' length and sha256, the v1
 * it computed with the first secret, the t it used, and the bytes themselves when small. Sent back
 * while developing, it lets the inspector's doctor and `sandbay check` name the mistake by themselves.
 */
export function echoValue(payload: string | Uint8Array, timestamp: number | undefined, secret: string): string {
  const bytes =
    typeof payload === 'string'
      ? Buffer.from(payload, 'utf8')
      : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const fields = [`length=${bytes.length}`, `sha256=${createHash('sha256').update(bytes).digest('hex')}`];
  if (timestamp !== undefined) fields.push(`v1=${v1Signature(secret, timestamp, bytes)}`, `t=${timestamp}`);
  if (bytes.length <= echoedBodyBytes) fields.push(`body=${bytes.toString('base64')}`);
  return fields.join(',');
}
