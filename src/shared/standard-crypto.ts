import { WebCryptoUnavailableError } from './hmac.ts';
import { fromBase64, keyPrefixes, standardHmacKey, toBase64 } from './schemes.ts';

/**
 * Standard Webhooks' two signatures with WebCrypto, for code that also runs in the browser (the
 * inspector's breakdown, the receiver doctor): v1 is HMAC-SHA256 keyed by the base64-decoded secret,
 * v1a an ed25519 signature checked with a whpk_ public key. The engine signs with node:crypto
 * (src/receiver/schemes), never with this.
 */

const encoder = new TextEncoder();
type Key = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
const keys = new Map<string, Promise<Key>>();

function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new WebCryptoUnavailableError();
  return s;
}

function cached(id: string, make: () => Promise<Key>): Promise<Key> {
  let key = keys.get(id);
  if (!key) {
    key = make();
    // A handful of live keys per session; the cap only guards against pasted junk piling up.
    if (keys.size > 64) keys.clear();
    keys.set(id, key);
  }
  return key;
}

/** base64 HMAC-SHA256 of `content` under a whsec_ secret's decoded bytes; undefined when the secret is not base64. */
export async function standardV1Base64(secret: string, content: string): Promise<string | undefined> {
  const raw = standardHmacKey(secret);
  if (!raw) return undefined;
  const key = await cached(`hmac:${secret}`, () =>
    subtle().importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  );
  return toBase64(new Uint8Array(await subtle().sign('HMAC', key, encoder.encode(content))));
}

/** Whether a base64 v1a signature of `content` verifies with a whpk_ public key. */
export async function ed25519Verifies(publicKey: string, signature: string, content: string): Promise<boolean> {
  const raw = fromBase64(
    publicKey.startsWith(keyPrefixes.publicKey) ? publicKey.slice(keyPrefixes.publicKey.length) : publicKey,
  );
  const sig = fromBase64(signature);
  if (raw?.length !== 32 || sig?.length !== 64) return false;
  const key = await cached(`ed25519:${publicKey}`, () =>
    subtle().importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']),
  );
  return subtle().verify({ name: 'Ed25519' }, key, sig, encoder.encode(content));
}
