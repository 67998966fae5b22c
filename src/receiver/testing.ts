import { isSigningKey, type SchemeName } from '../shared/schemes.ts';
import { sandbayScheme, signRequest } from './schemes.ts';

/**
 * The X-Service-Signature value Sandbay would send for this body (Stripe's generateTestHeaderString),
 * for a receiver's own unit tests: sign a fixture and post it to your handler.
 */
export function signTestHeader(options: {
  payload: string | Uint8Array;
  secret: string | readonly string[];
  timestamp?: number;
}): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const headers = sandbayScheme.sign({ id: '', timestamp, payload: options.payload, secrets });
  return headers[sandbayScheme.headers[0]];
}

/**
 * Every signing header Sandbay would send for this body in one scheme or several (SPEC §11), for a
 * receiver's own tests: `{ 'webhook-id', 'webhook-timestamp', 'webhook-signature' }` for Standard
 * Webhooks. HMAC schemes sign with whsec_ secrets; ed25519 needs a whsk_ private key, which only a
 * test of your own would hold (Sandbay keeps its endpoints').
 */
export function signTestHeaders(options: {
  payload: string | Uint8Array;
  secret: string | readonly string[];
  scheme?: SchemeName | readonly SchemeName[];
  /** webhook-id (default: a fresh dlv_ id). */
  id?: string;
  timestamp?: number;
}): Record<string, string> {
  const keys = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const ids =
    options.scheme === undefined
      ? ['sandbay' as const]
      : typeof options.scheme === 'string'
        ? [options.scheme as SchemeName]
        : options.scheme;
  return signRequest(ids, {
    id: options.id ?? `dlv_test${Date.now().toString(36)}`,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    payload: options.payload,
    secrets: keys.filter((k) => !isSigningKey(k)),
    signingKeys: keys.filter(isSigningKey),
  });
}
