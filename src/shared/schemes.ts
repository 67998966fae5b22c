/**
 * The signing schemes an endpoint can use (SPEC §11), pure so the engine, the receiver toolkit
 * and the browser agree on names, header formats and what is signed:
 *   sandbay                    X-Service-Signature: t=<unix>,v1=<hex HMAC of "t.body">   (./signature.ts)
 *   standard-webhooks          webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC of "id.t.body">
 *   standard-webhooks-ed25519  the same headers, webhook-signature: v1a,<base64 ed25519 of "id.t.body">
 * Several signatures share one webhook-signature header, space-separated (rotation, or both
 * Standard Webhooks schemes at once).
 */

export const schemeNames = ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519'] as const;
export type SchemeName = (typeof schemeNames)[number];
export const defaultScheme: SchemeName = 'sandbay';

export const isSchemeName = (value: unknown): value is SchemeName =>
  (schemeNames as readonly unknown[]).includes(value);

/** Standard Webhooks' header names, lowercase as HTTP/2 and Node hand them over. */
export const standardHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * HMAC secrets (both HMAC schemes), ed25519 secret keys (kept by the endpoint) and public keys (given to receivers).
 */
export const keyPrefixes = { secret: 'whsec_', signingKey: 'whsk_', publicKey: 'whpk_' } as const;

/** A whpk_ public key (it checks v1a). */
export const isPublicKey = (key: string) => key.startsWith(keyPrefixes.publicKey);
/** A whsk_ ed25519 private key (it signs v1a). */
export const isSigningKey = (key: string) => key.startsWith(keyPrefixes.signingKey);
/** An HMAC secret: any key that is neither a public key nor a signing key. */
export const isHmacSecret = (key: string) => !isPublicKey(key) && !isSigningKey(key);

/** The signature versions of Standard Webhooks: v1 HMAC-SHA256, v1a ed25519. */
export type StandardVersion = 'v1' | 'v1a';

export interface StandardSignature {
  version: StandardVersion;
  /** The base64 signature as sent. */
  value: string;
}

export interface ParsedStandardHeaders {
  id: string;
  timestamp: number;
  signatures: StandardSignature[];
}

/** Exactly what Standard Webhooks signs: "<webhook-id>.<webhook-timestamp>.<raw body>". */
export const standardSignedContent = (id: string, timestamp: number, body: string) => `${id}.${timestamp}.${body}`;

export const formatStandardSignature = (signatures: readonly StandardSignature[]) =>
  signatures.map((s) => `${s.version},${s.value}`).join(' ');

/**
 * Reads the three Standard Webhooks headers; undefined when one is missing or unusable. Unknown
 * versions (v2,…) are skipped, as the official libraries do; an id with a "." is refused (the
 * specification forbids it: it would let one signed string pass for another).
 */
export function parseStandardHeaders(headers: {
  id?: string | null;
  timestamp?: string | null;
  signature?: string | null;
}): ParsedStandardHeaders | undefined {
  const id = headers.id?.trim();
  const timestampText = headers.timestamp?.trim() ?? '';
  if (!id || id.includes('.') || !/^\d{1,12}$/.test(timestampText)) return undefined;
  const signatures: StandardSignature[] = [];
  for (const token of (headers.signature ?? '').split(' ')) {
    const comma = token.indexOf(',');
    if (comma < 0) continue;
    const version = token.slice(0, comma);
    const value = token.slice(comma + 1);
    if ((version === 'v1' || version === 'v1a') && value) signatures.push({ version, value });
  }
  return signatures.length > 0 ? { id, timestamp: Number(timestampText), signatures } : undefined;
}

/** Standard base64 of bytes (browser and Node alike). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Bytes of standard base64 text; undefined when it is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * The HMAC key of a whsec_ secret under Standard Webhooks: the base64 after the prefix, decoded
 * (Sandbay's own scheme keys with the whole string's UTF-8 bytes instead). Undefined when the rest
 * is not base64.
 */
export const standardHmacKey = (secret: string): Uint8Array<ArrayBuffer> | undefined =>
  fromBase64(secret.startsWith(keyPrefixes.secret) ? secret.slice(keyPrefixes.secret.length) : secret);
