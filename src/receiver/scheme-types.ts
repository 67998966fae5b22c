// The shape every signature scheme has (./schemes.ts, ./standard.ts), apart from the schemes themselves.
import type { SchemeName } from '../shared/schemes.ts';
import type { HeaderSource } from './headers.ts';

/** What a scheme reads off a request: the signing time, the signatures, and the message id when it signs one. */
export interface SignedRequest {
  timestamp: number;
  signatures: string[];
  id?: string;
}

/**
 * What one request is signed with: its id (webhook-id), the real-clock second, the exact body, the keys newest first.
 */
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
