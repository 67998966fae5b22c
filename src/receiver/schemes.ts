import { parseSignatureHeader, signatureHeaderName, formatSignatureHeader } from '../shared/signature.ts';
import { v1Signature } from './sign.ts';

/** Request headers as receivers hold them: Node's object (string | string[]), a Fetch Headers, or a plain record. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | readonly string[] | undefined | null>;

/** One header of a request, case-insensitively; repeated values are joined with a comma, as HTTP allows. */
export function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined | null>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : ((value as string | null | undefined) ?? undefined);
}

/** What a scheme reads off a request: the signing time, the signatures, and the message id when it signs one. */
export interface SignedRequest {
  timestamp: number;
  signatures: string[];
  id?: string;
}

/**
 * A signature scheme as one small object (the shape of the Standard Webhooks libraries' Webhook):
 * the headers it owns, how it signs, and how it reads and recomputes a signature. verifyWebhook and
 * the engine's signer go through it, so another scheme sits beside this one without a new code path.
 */
export interface SignatureScheme {
  readonly id: string;
  /** The headers it sends, the first being the one that tells its requests apart. */
  readonly headers: readonly string[];
  /** The headers of one signed request: one signature per live secret, newest first. */
  sign(input: { id: string; timestamp: number; payload: string | Uint8Array; secrets: readonly string[] }): Record<string, string>;
  /** Reads the scheme's headers: the signed request, or why they cannot be used. */
  read(headers: HeaderSource): SignedRequest | 'no_header' | 'malformed_header';
  /** The signature a payload has under one secret, written as the header writes it. */
  signature(secret: string, signed: Omit<SignedRequest, 'signatures'>, payload: string | Uint8Array): string;
}

/** Sandbay's own scheme (SPEC §5.2): X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">. */
export const sandbayScheme: SignatureScheme = {
  id: 'sandbay',
  headers: [signatureHeaderName],
  sign: ({ timestamp, payload, secrets }) => ({
    [signatureHeaderName]: formatSignatureHeader(timestamp, secrets.map((s) => v1Signature(s, timestamp, payload))),
  }),
  read(headers) {
    const header = headerOf(headers, signatureHeaderName);
    if (!header?.trim()) return 'no_header';
    return parseSignatureHeader(header) ?? 'malformed_header';
  },
  signature: (secret, { timestamp }, payload) => v1Signature(secret, timestamp, payload),
};

/** Every scheme verifyWebhook knows, tried in this order when a request's headers are given whole. */
export const schemes: readonly SignatureScheme[] = [sandbayScheme];
