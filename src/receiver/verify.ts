import { constantTimeEqual } from '../shared/hmac.ts';
import { diagnoseSync, type FindingCode } from '../shared/receiver-doctor.ts';
import { defaultToleranceSeconds, parseSignatureHeader } from '../shared/signature.ts';
import type { Topic } from '../shared/topics.ts';
import { v1Signature } from './sign.ts';

/** The JSON body of every Sandbay webhook (SPEC §5.2). */
export interface WebhookEnvelope<Data = unknown> {
  /** One of the 33 topics (typed as string too, so a newer server's topics still parse). */
  topic: Topic | (string & {});
  /** Fixed for every attempt and replay of one delivery: the key to dedupe on. */
  deliveryId: string;
  tenantId: string;
  occurredAt: string;
  data: Data;
}

export type VerificationFailure = 'no_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature';

/** Thrown by verifyWebhook; `reason` is the stable part to branch on. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  /**
   * The likeliest cause the receiver doctor can tell from the payload, header and secret
   * (e.g. "The JSON was parsed and serialised again: …"), for logs and humans; not for branching.
   */
  readonly hint?: string;
  /** The doctor's code for that cause (reserialised_json, stripped_prefix, stale_timestamp …). */
  readonly hintCode?: FindingCode;

  constructor(readonly reason: VerificationFailure, message: string, likely?: { code: FindingCode; text: string }) {
    super(likely ? `${message} Likely cause: ${likely.text}` : message);
    if (likely) {
      this.hint = likely.text;
      this.hintCode = likely.code;
    }
  }
}

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received: never JSON that was parsed and serialised again. */
  payload: string | Uint8Array;
  /** The X-Service-Signature header (Node gives string | string[] | undefined). */
  header: string | readonly string[] | null | undefined;
  /** The endpoint's secret, or every live secret during a rotation. */
  secret: string | readonly string[];
  /** How far the signature time may be from `now`, either way (default 300 s; Infinity turns the check off). */
  toleranceSeconds?: number;
  /** Unix seconds (default: the real clock). */
  now?: number;
}

// Findings that describe the input rather than explain the failure.
const notACause = new Set<FindingCode>(['header_name_included', 'signature_ok', 'masked_secret']);

/** The receiver doctor's likeliest cause for a failure, trying each secret the receiver holds. */
function likelyCause(payload: string | Uint8Array, header: string, secrets: readonly string[], now: number, toleranceSeconds: number, wanted: (code: FindingCode) => boolean) {
  const body = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  for (const secret of secrets) {
    const found = diagnoseSync({ body, header, secret, now, toleranceSeconds: Number.isFinite(toleranceSeconds) ? toleranceSeconds : undefined }, v1Signature)
      .findings.find((f) => !notACause.has(f.code) && wanted(f.code));
    if (found && found.code !== 'no_matching_signature') return { code: found.code, text: `${found.title}. ${found.detail}` };
  }
  return undefined;
}

function checkArguments(payload: unknown, secrets: readonly string[], toleranceSeconds: number, now: number): void {
  // A parsed object here is the classic mistake (a JSON body parser ran first): say so plainly.
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: payload must be the raw body as a string or Buffer, not a parsed object');
  }
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook: secret must be a non-empty string or an array of them');
  }
  if (!(toleranceSeconds >= 0)) throw new TypeError('verifyWebhook: toleranceSeconds must be a number ≥ 0');
  if (!Number.isFinite(now)) throw new TypeError('verifyWebhook: now must be unix seconds');
}

/**
 * Verifies a Sandbay webhook the way Stripe's constructEvent does and returns its parsed
 * envelope; throws WebhookVerificationError (with a `reason`) when it must be rejected.
 */
export function verifyWebhook<Data = unknown>(options: VerifyWebhookOptions): WebhookEnvelope<Data> {
  const { payload, toleranceSeconds = defaultToleranceSeconds, now = Math.floor(Date.now() / 1000) } = options;
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  checkArguments(payload, secrets, toleranceSeconds, now);
  const header = Array.isArray(options.header) ? options.header.join(',') : (options.header as string | null | undefined);
  if (!header?.trim()) throw new WebhookVerificationError('no_header', 'No X-Service-Signature header on the request.');
  const parsed = parseSignatureHeader(header);
  if (!parsed) {
    throw new WebhookVerificationError('malformed_header', 'The X-Service-Signature header is not "t=<unix seconds>,v1=<hex>[,v1=<hex>…]".');
  }
  // Signature before time, as Stripe does: an unsigned timestamp says nothing worth reporting.
  const expected = secrets.map((secret) => v1Signature(secret, parsed.timestamp, payload));
  if (!parsed.signatures.some((v1) => expected.some((e) => constantTimeEqual(v1, e)))) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      'No v1 signature matches: check the secret, and verify the raw body bytes (not JSON parsed and serialised again).',
      likelyCause(payload, header, secrets, now, toleranceSeconds, (code) => code !== 'stale_timestamp' && code !== 'future_timestamp'),
    );
  }
  const skew = now - parsed.timestamp;
  if (Math.abs(skew) > toleranceSeconds) {
    const direction = skew > 0 ? `${skew} s old` : `${-skew} s in the future`;
    throw new WebhookVerificationError('timestamp_outside_tolerance', `The signature is ${direction}; the tolerance is ${toleranceSeconds} s.`,
      likelyCause(payload, header, secrets, now, toleranceSeconds, (code) => code === 'stale_timestamp' || code === 'future_timestamp'));
  }
  const text = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  return JSON.parse(text) as WebhookEnvelope<Data>;
}
