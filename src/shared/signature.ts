/**
 * The X-Service-Signature scheme (SPEC §5.2), pure so the server, the receiver toolkit and
 * the browser's signature breakdown all parse and build it the same way:
 *   header = "t=<unix seconds>,v1=<hex>[,v1=<hex>…]"
 *   v1     = hex(HMAC-SHA256(key = UTF-8 secret, message = "<t>.<raw body>"))
 */

export const signatureHeaderName = 'X-Service-Signature';
/** The debug echo a receiver may answer with (shared/receiver-echo.ts reads it; the receiver kit writes it). */
export const echoHeaderName = 'Sandbay-Echo';
export const defaultToleranceSeconds = 300;

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** The exact string that is signed. */
export const signedPayload = (timestamp: number, body: string) => `${timestamp}.${body}`;

export const formatSignatureHeader = (timestamp: number, signatures: string[]) =>
  [`t=${timestamp}`, ...signatures.map((s) => `v1=${s}`)].join(',');

/**
 * Parses a header; undefined when it has no usable t or no v1. Unknown schemes (v0=…) are
 * ignored, as Stripe's SDKs do, so the scheme can grow.
 */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
    else if (key === 'v1' && value) signatures.push(value);
  }
  if (timestamp === undefined || Number.isNaN(timestamp) || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}
