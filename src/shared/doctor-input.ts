import {
  isPublicKey,
  parseStandardHeaders,
  standardHeaders,
  standardSignedContent,
  type ParsedStandardHeaders,
} from './schemes.ts';
import { parseSignatureHeader, signatureHeaderName, signedPayload, type ParsedSignature } from './signature.ts';

/**
 * What the receiver doctor was given as "the header": X-Service-Signature's value (with or without its
 * name), or header lines ("webhook-id: …" one per line) for Standard Webhooks (SPEC §11).
 */
export type ReadHeader =
  | { scheme: 'sandbay'; parsed: ParsedSignature; nameIncluded: boolean }
  | { scheme: 'standard-webhooks'; parsed: ParsedStandardHeaders }
  | { error: 'no_header' | 'malformed_header'; scheme: 'sandbay' | 'standard-webhooks'; nameIncluded: boolean };

/** Header lines as a lowercase record, when the text is "Name: value" lines. */
function headerLines(text: string): Record<string, string> | undefined {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const pairs = lines.map((l) => /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(l));
  if (pairs.length === 0 || pairs.some((p) => !p)) return undefined;
  return Object.fromEntries(pairs.map((p) => [p![1].toLowerCase(), p![2].trim()]));
}

export function readHeader(text: string): ReadHeader {
  const trimmed = text.trim();
  const lines = headerLines(trimmed);
  if (lines && Object.keys(lines).some((name) => name.startsWith('webhook-'))) {
    if (!lines[standardHeaders.signature])
      return { error: 'no_header', scheme: 'standard-webhooks', nameIncluded: true };
    const parsed = parseStandardHeaders({
      id: lines[standardHeaders.id],
      timestamp: lines[standardHeaders.timestamp],
      signature: lines[standardHeaders.signature],
    });
    return parsed
      ? { scheme: 'standard-webhooks', parsed }
      : { error: 'malformed_header', scheme: 'standard-webhooks', nameIncluded: true };
  }
  const named = new RegExp(`^${signatureHeaderName}\\s*:\\s*`, 'i');
  const nameIncluded = named.test(trimmed);
  const value = trimmed.replace(named, '');
  if (!value) return { error: 'no_header', scheme: 'sandbay', nameIncluded };
  const parsed = parseSignatureHeader(value);
  return parsed
    ? { scheme: 'sandbay', parsed, nameIncluded }
    : { error: 'malformed_header', scheme: 'sandbay', nameIncluded };
}

/**
 * The computations a diagnosis asks for, answered by its driver (WebCrypto in the browser, node:crypto
 * in Node): Sandbay's hex v1, Standard Webhooks' base64 v1 (undefined when the secret is not base64), and
 * whether an ed25519 signature verifies.
 */
export type CryptoQuestion =
  | { op: 'hmacHex'; secret: string; message: string }
  | { op: 'standardV1'; secret: string; message: string }
  | { op: 'ed25519'; publicKey: string; signature: string; message: string };

/** Whether any signature of the header verifies `body` with `key`, asking the driver for each computation. */
export function* verifiesWith(
  read: Exclude<ReadHeader, { error: string }>,
  key: string,
  body: string,
  equal: (a: string, b: string) => boolean,
): Generator<CryptoQuestion, boolean, unknown> {
  if (read.scheme === 'sandbay') {
    const expected = (yield {
      op: 'hmacHex',
      secret: key,
      message: signedPayload(read.parsed.timestamp, body),
    }) as string;
    return read.parsed.signatures.some((v1) => equal(v1, expected));
  }
  const message = standardSignedContent(read.parsed.id, read.parsed.timestamp, body);
  if (isPublicKey(key)) {
    for (const s of read.parsed.signatures) {
      if (s.version === 'v1a' && (yield { op: 'ed25519', publicKey: key, signature: s.value, message })) return true;
    }
    return false;
  }
  const expected = (yield { op: 'standardV1', secret: key, message }) as string | undefined;
  return expected !== undefined && read.parsed.signatures.some((s) => s.version === 'v1' && equal(s.value, expected));
}
