import { createHmac, createSecretKey, sign as ed25519Sign, type KeyObject } from 'node:crypto';
import { constantTimeEqual } from '../shared/hmac.ts';
import {
  formatStandardSignature,
  isHmacSecret,
  isPublicKey,
  parseStandardHeaders,
  standardHeaders,
  standardHmacKey,
  type StandardVersion,
} from '../shared/schemes.ts';
import { ed25519Verifies, privateKeyOf } from './ed25519-keys.ts';
import { headerOf } from './headers.ts';
import type { SignatureScheme, SignInput, SignedRequest } from './scheme-types.ts';

// Decoded keys as KeyObjects, made once per secret: an HMAC keyed with raw bytes costs several times one
// keyed with a KeyObject in node:crypto (npm run bench: signing one attempt).
const hmacKeys = new Map<string, KeyObject>();

function hmacKeyOf(secret: string): KeyObject | undefined {
  let key = hmacKeys.get(secret);
  if (!key) {
    const raw = standardHmacKey(secret);
    if (!raw || raw.length === 0) return undefined;
    if (hmacKeys.size > 1024) hmacKeys.clear();
    key = createSecretKey(raw);
    hmacKeys.set(secret, key);
  }
  return key;
}

const contentOf = (id: string, timestamp: number, body: string | Uint8Array) =>
  Buffer.concat([
    Buffer.from(`${id}.${timestamp}.`, 'utf8'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  ]);

/**
 * Base64 HMAC-SHA256 of already-assembled signed content ("id.timestamp.body"), as v1 signs it; undefined when the
 * secret is not whsec_ + base64.
 */
export function standardV1Content(secret: string, content: string): string | undefined {
  const key = hmacKeyOf(secret);
  return key && createHmac('sha256', key).update(content, 'utf8').digest('base64');
}

/** v1 of Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body", keyed by the secret's base64-decoded bytes. */
export function standardV1(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const key = hmacKeyOf(secret);
  if (!key) throw new TypeError('A Standard Webhooks secret is whsec_ followed by base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest('base64');
}

/** v1a of Standard Webhooks: base64 ed25519 signature of "id.timestamp.body" with a whsk_ key. */
export function standardV1a(signingKey: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const key = privateKeyOf(signingKey);
  if (!key) throw new TypeError('An ed25519 signing key is whsk_ followed by the base64 of 32 bytes');
  return ed25519Sign(null, contentOf(id, timestamp, body), key).toString('base64');
}

const headerNames = [standardHeaders.signature, standardHeaders.id, standardHeaders.timestamp];
const format =
  'webhook-id: <id>, webhook-timestamp: <unix seconds>, webhook-signature: v1,<base64> | v1a,<base64> [ …]';

function read(
  version: StandardVersion,
  headers: Parameters<SignatureScheme['read']>[0],
): SignedRequest | 'no_header' | 'malformed_header' {
  const signature = headerOf(headers, standardHeaders.signature);
  if (!signature?.trim()) return 'no_header';
  const parsed = parseStandardHeaders({
    id: headerOf(headers, standardHeaders.id),
    timestamp: headerOf(headers, standardHeaders.timestamp),
    signature,
  });
  if (!parsed) return 'malformed_header';
  return {
    id: parsed.id,
    timestamp: parsed.timestamp,
    signatures: parsed.signatures.filter((s) => s.version === version).map((s) => s.value),
  };
}

const signWith =
  (
    version: StandardVersion,
    keysOf: (i: SignInput) => readonly string[],
    sign: (key: string, i: SignInput) => string,
  ) =>
  (input: SignInput): Record<string, string> => ({
    [standardHeaders.id]: input.id,
    [standardHeaders.timestamp]: String(input.timestamp),
    [standardHeaders.signature]: formatStandardSignature(
      keysOf(input).map((key) => ({ version, value: sign(key, input) })),
    ),
  });

/**
 * Standard Webhooks with HMAC (SPEC §11): webhook-signature: v1,<base64>, keyed with the base64 after whsec_, decoded.
 */
export const standardScheme: SignatureScheme = {
  id: 'standard-webhooks',
  headers: headerNames,
  format,
  sign: signWith(
    'v1',
    (i) => i.secrets,
    (secret, i) => standardV1(secret, i.id, i.timestamp, i.payload),
  ),
  read: (headers) => read('v1', headers),
  verifiesWith: isHmacSecret,
  matches: (signed, payload, keys) =>
    keys.some((secret) => {
      if (!hmacKeyOf(secret)) return false;
      const expected = standardV1(secret, signed.id!, signed.timestamp, payload);
      return signed.signatures.some((v1) => constantTimeEqual(v1, expected));
    }),
};

/** Standard Webhooks with ed25519 (SPEC §11): webhook-signature: v1a,<base64>, verified with a whpk_ public key. */
export const standardEd25519Scheme: SignatureScheme = {
  id: 'standard-webhooks-ed25519',
  headers: headerNames,
  format,
  sign: signWith(
    'v1a',
    (i) => i.signingKeys ?? [],
    (key, i) => standardV1a(key, i.id, i.timestamp, i.payload),
  ),
  read: (headers) => read('v1a', headers),
  verifiesWith: isPublicKey,
  matches: (signed, payload, keys) => {
    const content = contentOf(signed.id!, signed.timestamp, payload);
    return keys.some((text) => signed.signatures.some((signature) => ed25519Verifies(text, signature, content)));
  },
};
