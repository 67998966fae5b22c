/**
 * HMAC-SHA256 with WebCrypto (`crypto.subtle`), for code that must also run in the browser: the
 * signature breakdown (which the catcher reuses on the server), the receiver doctor and the curl
 * builder. The engine signs, and the receiver package verifies, synchronously with node:crypto in
 * receiver/sign.ts: verifyWebhook is synchronous, as Stripe's constructEvent is, and WebCrypto is not.
 */

const encoder = new TextEncoder();
// Spelled via importKey so the type resolves under both the DOM and the Node typings.
type HmacKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
const keys = new Map<string, Promise<HmacKey>>();

/** Browsers only offer crypto.subtle in secure contexts (https, localhost, 127.0.0.1). */
export class WebCryptoUnavailableError extends Error {
  constructor() {
    super(
      'This page cannot compute HMACs: WebCrypto is only available on https or loopback addresses (open the inspector on 127.0.0.1).',
    );
  }
}

function importKey(secret: string): Promise<HmacKey> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new WebCryptoUnavailableError();
  let key = keys.get(secret);
  if (!key) {
    key = subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    // A handful of live secrets per session; the cap only guards against pasted junk piling up.
    if (keys.size > 64) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** Lowercase hex of HMAC-SHA256(key = UTF-8 bytes of `secret`, message = UTF-8 bytes of `message`). */
export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const signature = await globalThis.crypto.subtle.sign('HMAC', await importKey(secret), encoder.encode(message));
  return Array.from(new Uint8Array(signature), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** Bytes in the UTF-8 encoding of a string (what is actually signed and sent). */
export const utf8Length = (text: string) => encoder.encode(text).length;
