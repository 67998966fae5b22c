import { createPrivateKey, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { keyPrefixes } from '../shared/schemes.ts';

/**
 * Standard Webhooks' ed25519 keys as text: whsk_ + base64 of the 32-byte private key (the RFC 8032
 * seed), whpk_ + base64 of the 32-byte public key, as in the specification's Go library. Parsed
 * keys are kept, so signing a burst of deliveries parses each key once.
 */

// The DER (PKCS #8) prefix of an Ed25519 private key: the 32-byte seed follows it.
const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject>();

function remember(cache: Map<string, KeyObject>, text: string, key: KeyObject): KeyObject {
  // A few live keys per endpoint; the bound only keeps pasted junk from piling up.
  if (cache.size > 1024) cache.clear();
  cache.set(text, key);
  return key;
}

const rawOf = (text: string, prefix: string): Buffer | undefined => {
  const raw = Buffer.from(text.startsWith(prefix) ? text.slice(prefix.length) : text, 'base64');
  return raw.length === 32 ? raw : undefined;
};

/** The signing key of a whsk_ text; undefined when it is not one. */
export function privateKeyOf(text: string): KeyObject | undefined {
  const cached = privateKeys.get(text);
  if (cached) return cached;
  const seed = rawOf(text, keyPrefixes.signingKey);
  return (
    seed &&
    remember(
      privateKeys,
      text,
      createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' }),
    )
  );
}

/** The verifying key of a whpk_ text; undefined when it is not one. */
function publicKeyOf(text: string): KeyObject | undefined {
  const cached = publicKeys.get(text);
  if (cached) return cached;
  const raw = rawOf(text, keyPrefixes.publicKey);
  return (
    raw &&
    remember(
      publicKeys,
      text,
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }),
    )
  );
}

/** Whether a base64 ed25519 signature of `content` verifies with a whpk_ public key (false when either is not one). */
export function ed25519Verifies(publicKeyText: string, signatureBase64: string, content: string | Uint8Array): boolean {
  const key = publicKeyOf(publicKeyText);
  const signature = Buffer.from(signatureBase64, 'base64');
  return (
    key !== undefined &&
    signature.length === 64 &&
    verify(null, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, key, signature)
  );
}

/** The whpk_ text of a whsk_ key's public half. */
export function publicKeyText(signingKey: string): string {
  const key = privateKeyOf(signingKey);
  if (!key) throw new TypeError('not a whsk_ ed25519 key');
  const { x } = createPublicKey(key).export({ format: 'jwk' });
  return keyPrefixes.publicKey + Buffer.from(x!, 'base64url').toString('base64');
}

/** A fresh key pair, as text. */
export function newEd25519KeyPair(): { signingKey: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { d } = privateKey.export({ format: 'jwk' });
  const signingKey = keyPrefixes.signingKey + Buffer.from(d!, 'base64url').toString('base64');
  return { signingKey, publicKey: publicKeyText(signingKey) };
}
