import { isHmacSecret, type SchemeName } from '../shared/schemes.ts';
import { formatSignatureHeader, parseSignatureHeader, signatureHeaderName } from '../shared/signature.ts';
import { constantTimeEqual } from '../shared/hmac.ts';
import { headerOf } from './headers.ts';
import type { SignatureScheme, SignInput } from './scheme-types.ts';
import { v1Signature } from './sign.ts';
import { standardEd25519Scheme, standardScheme } from './standard.ts';

export { headerOf, type HeaderSource } from './headers.ts';
export type { SignatureScheme, SignedRequest, SignInput } from './scheme-types.ts';

/**
 * Sandbay's own scheme (SPEC §5.2): X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">, keyed with the
 * whole secret.
 */
export const sandbayScheme: SignatureScheme = {
  id: 'sandbay',
  headers: [signatureHeaderName],
  format: 't=<unix seconds>,v1=<hex>[,v1=<hex>…]',
  sign: ({ timestamp, payload, secrets }) => ({
    [signatureHeaderName]: formatSignatureHeader(
      timestamp,
      secrets.map((s) => v1Signature(s, timestamp, payload)),
    ),
  }),
  read(headers) {
    const header = headerOf(headers, signatureHeaderName);
    if (!header?.trim()) return 'no_header';
    return parseSignatureHeader(header) ?? 'malformed_header';
  },
  verifiesWith: isHmacSecret,
  matches: (signed, payload, keys) =>
    keys.some((secret) => {
      const expected = v1Signature(secret, signed.timestamp, payload);
      return signed.signatures.some((v1) => constantTimeEqual(v1, expected));
    }),
};

/** Every scheme verifyWebhook knows, in the order it tries them when a request's headers are given whole. */
export const schemes: readonly SignatureScheme[] = [standardScheme, standardEd25519Scheme, sandbayScheme];

/** The scheme named `id`; a name no scheme has (a row written by another version) throws, saying which. */
export function schemeById(id: SchemeName): SignatureScheme {
  const scheme = schemes.find((s) => s.id === id);
  if (!scheme) throw new Error(`unknown signature scheme ${JSON.stringify(id)}`);
  return scheme;
}

/**
 * The signing headers of one request under several schemes at once (a migration), by lowercase name:
 * each scheme's set; where two write the same header (both Standard Webhooks schemes write
 * webhook-signature) differing values are joined with a space, the specification's list separator.
 */
export function signRequest(ids: readonly SchemeName[], input: SignInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of ids) {
    for (const [name, value] of Object.entries(schemeById(id).sign(input))) {
      const key = name.toLowerCase();
      if (!value) continue;
      out[key] = out[key] === undefined || out[key] === value ? value : `${out[key]} ${value}`;
    }
  }
  return out;
}
