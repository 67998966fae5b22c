const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text of the given length (crypto-strength; works in Node and browsers). */
export function randomString(length: number): string {
  const bytes = new Uint8Array(length * 2);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  // 62 does not divide 256: rejecting bytes ≥ 248 keeps every character equally likely.
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    if (bytes[i] < 248) out += alphabet[bytes[i] % 62];
  }
  return out.length === length ? out : out + randomString(length - out.length);
}

/** A new object id with its type prefix, e.g. newId('ord') → ord_4fQ9…; seeded objects use ord_0001 etc. */
export function newId(prefix: string): string {
  return `${prefix}_${randomString(20)}`;
}
