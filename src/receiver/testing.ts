import { sandbayScheme } from './schemes.ts';

/**
 * The X-Service-Signature value Sandbay would send for this body (Stripe's generateTestHeaderString),
 * for a receiver's own unit tests: sign a fixture and post it to your handler.
 */
export function signTestHeader(options: { payload: string | Uint8Array; secret: string | readonly string[]; timestamp?: number }): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const headers = sandbayScheme.sign({ id: '', timestamp, payload: options.payload, secrets });
  return headers[sandbayScheme.headers[0]];
}
