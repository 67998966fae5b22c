import { hmacSha256Hex } from './hmac.ts';
import { formatSignatureHeader, signatureHeaderName, signedPayload } from './signature.ts';

/** Quotes one argument for a POSIX shell: single quotes, with embedded ones closed and escaped. */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** A curl command that POSTs `body` byte for byte with the given headers. */
export function curlCommand(url: string, headers: Record<string, string>, body: string): string {
  const lines = [`curl -X POST ${shellQuote(url)}`, ...Object.entries(headers).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`), `--data-binary ${shellQuote(body)}`];
  return lines.join(' \\\n  ');
}

/**
 * "Copy as curl": the delivery's exact body and production headers, signed afresh at `now`
 * with every live secret (newest first) so a receiver checking the 5-minute tolerance accepts it.
 */
export async function resignedCurl(input: {
  url: string;
  topic: string;
  deliveryId: string;
  rawBody: string;
  secrets: readonly string[];
  /** Unix seconds. */
  now: number;
}): Promise<string> {
  const payload = signedPayload(input.now, input.rawBody);
  const signatures = await Promise.all(input.secrets.map((s) => hmacSha256Hex(s, payload)));
  return curlCommand(input.url, {
    'Content-Type': 'application/json',
    'X-Service-Topic': input.topic,
    'X-Service-Delivery-Id': input.deliveryId,
    [signatureHeaderName]: formatSignatureHeader(input.now, signatures),
  }, input.rawBody);
}
