import { keyPrefixes, type SchemeName } from '../shared/schemes.ts';
import { formatSignatureHeader, parseSignatureHeader, signatureHeaderName } from '../shared/signature.ts';
import { constantTimeEqual } from '../shared/hmac.ts';
import { headerOf, type HeaderSource } from './headers.ts';
import { v1Signature } from './sign.ts';
import { standardEd25519Scheme, standardScheme } from './standard.ts';

export { headerOf, type HeaderSource } from './headers.ts';

/** What a scheme reads off a request: the signing time, the signatures, and the message id when it signs one. */
export interface SignedRequest {
  timestamp: number;
  signatures: string[];
  id?: string;
}

/** What one request is signed with: its id (webhook-id), the real-clock second, the exact body, the keys newest first. */
export interface SignInput {
  id: string;
  timestamp: number;
  payload: string | Uint8Array;
  /** whsec_ secrets: both HMAC schemes sign with them. */
  secrets: readonly string[];
  /** whsk_ ed25519 private keys, for standard-webhooks-ed25519. */
  signingKeys?: readonly string[];
}

/**
 * A signature scheme as one small object (the shape of the Standard Webhooks libraries' Webhook):
 * the headers it owns, how it signs, how it reads a request back, and whether a key a receiver holds
 * verifies it. The engine signs attempts and verifyWebhook checks them through these same objects,
 * so the schemes sit side by side without a code path each (SPEC §11).
 */
export interface SignatureScheme {
  readonly id: SchemeName;
  /** The headers it sends, the first being the one that tells its requests apart. */
  readonly headers: readonly string[];
  /** What its signature header must look like, for error messages. */
  readonly format: string;
  /** The headers of one signed request: one signature per live key, newest first. */
  sign(input: SignInput): Record<string, string>;
  /** Reads the scheme's headers: the signed request, or why they cannot be used. */
  read(headers: HeaderSource): SignedRequest | 'no_header' | 'malformed_header';
  /** Whether a key a receiver holds is one this scheme verifies with (an HMAC secret, or a whpk_ public key). */
  verifiesWith(key: string): boolean;
  /** Whether any signature read is this payload's under one of `keys`. */
  matches(signed: SignedRequest, payload: string | Uint8Array, keys: readonly string[]): boolean;
}

const isHmacSecret = (key: string) => !key.startsWith(keyPrefixes.publicKey) && !key.startsWith(keyPrefixes.signingKey);

/** Sandbay's own scheme (SPEC §5.2): X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">, keyed with the whole secret. */
export const sandbayScheme: SignatureScheme = {
  id: 'sandbay',
  headers: [signatureHeaderName],
  format: 't=<unix seconds>,v1=<hex>[,v1=<hex>…]',
  sign: ({ timestamp, payload, secrets }) => ({
    [signatureHeaderName]: formatSignatureHeader(timestamp, secrets.map((s) => v1Signature(s, timestamp, payload))),
  }),
  read(headers) {
    const header = headerOf(headers, signatureHeaderName);
    if (!header?.trim()) return 'no_header';
    return parseSignatureHeader(header) ?? 'malformed_header';
  },
  verifiesWith: isHmacSecret,
  matches: (signed, payload, keys) => keys.some((secret) => {
    const expected = v1Signature(secret, signed.timestamp, payload);
    return signed.signatures.some((v1) => constantTimeEqual(v1, expected));
  }),
};

/** Every scheme verifyWebhook knows, in the order it tries them when a request's headers are given whole. */
export const schemes: readonly SignatureScheme[] = [standardScheme, standardEd25519Scheme, sandbayScheme];

export const schemeById = (id: SchemeName): SignatureScheme => schemes.find((s) => s.id === id)!;

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
