import { constantTimeEqual } from '../shared/hmac.ts';
import type { FindingCode } from '../shared/doctor-codes.ts';
import { defaultToleranceSeconds, signatureHeaderName } from '../shared/signature.ts';
import type { Topic } from '../shared/topics.ts';
import { echoValue } from './echo.ts';
import { likelyCause } from './hint.ts';
import { headerOf, sandbayScheme, schemes, type HeaderSource, type SignatureScheme, type SignedRequest } from './schemes.ts';

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
   * The likeliest cause the receiver doctor can tell from the payload, header and secret, with the
   * fix in Node (e.g. "The JSON was parsed and serialised again: … In Node.js: …"), for logs and humans; not for branching.
   */
  readonly hint?: string;
  /** The doctor's code for that cause (reserialised_json, stripped_prefix, stale_timestamp …). */
  readonly hintCode?: FindingCode;
  /**
   * What was verified, as a Sandbay-Echo header value (length, sha256, the v1 computed, and the bytes
   * when small). Answer with it while developing — `res.setHeader('Sandbay-Echo', err.echo)` — and the
   * inspector's doctor and `sandbay check` compare it with what Sandbay sent. No secret is in it.
   */
  readonly echo?: string;

  constructor(readonly reason: VerificationFailure, message: string, extra: { likely?: { code: FindingCode; text: string }; echo?: string } = {}) {
    super(extra.likely ? `${message} Likely cause: ${extra.likely.text}` : message);
    if (extra.likely) {
      this.hint = extra.likely.text;
      this.hintCode = extra.likely.code;
    }
    if (extra.echo) this.echo = extra.echo;
  }
}

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received: never JSON that was parsed and serialised again. */
  payload: string | Uint8Array;
  /** The X-Service-Signature header (Node gives string | string[] | undefined). Or give `headers`. */
  header?: string | readonly string[] | null;
  /** The request's headers whole (Node's req.headers, a Fetch Headers, a record): the scheme is read off them. */
  headers?: HeaderSource;
  /** The endpoint's secret, or every live secret during a rotation. */
  secret: string | readonly string[];
  /** How far the signature time may be from `now`, either way (default 300 s; Infinity turns the check off). */
  toleranceSeconds?: number;
  /** Unix seconds (default: the real clock). */
  now?: number;
}

function checkArguments(options: VerifyWebhookOptions, secrets: readonly string[], toleranceSeconds: number, now: number): void {
  // A parsed object here is the classic mistake (a JSON body parser ran first): say so plainly.
  if (typeof options.payload !== 'string' && !(options.payload instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: payload must be the raw body as a string or Buffer, not a parsed object');
  }
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook: secret must be a non-empty string or an array of them');
  }
  if (!(toleranceSeconds >= 0)) throw new TypeError('verifyWebhook: toleranceSeconds must be a number ≥ 0');
  if (!Number.isFinite(now)) throw new TypeError('verifyWebhook: now must be unix seconds');
}

/** The scheme a request is signed with, and the headers to read it from. */
function schemeOf(options: VerifyWebhookOptions): { scheme: SignatureScheme; headers: HeaderSource } {
  if (options.headers) {
    const scheme = schemes.find((s) => headerOf(options.headers!, s.headers[0]) !== undefined) ?? sandbayScheme;
    return { scheme, headers: options.headers };
  }
  const header = Array.isArray(options.header) ? options.header.join(',') : (options.header as string | null | undefined);
  return { scheme: sandbayScheme, headers: header == null ? {} : { [signatureHeaderName]: header } };
}

/**
 * Verifies a Sandbay webhook the way Stripe's constructEvent does and returns its parsed
 * envelope; throws WebhookVerificationError (with a `reason`) when it must be rejected.
 */
export function verifyWebhook<Data = unknown>(options: VerifyWebhookOptions): WebhookEnvelope<Data> {
  const { payload, toleranceSeconds = defaultToleranceSeconds, now = Math.floor(Date.now() / 1000) } = options;
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  checkArguments(options, secrets, toleranceSeconds, now);
  const { scheme, headers } = schemeOf(options);
  const read = scheme.read(headers);
  const names = scheme.headers.join(', ');
  if (read === 'no_header') throw new WebhookVerificationError('no_header', `No ${names} header on the request.`, { echo: echoValue(payload, undefined, secrets[0]) });
  if (read === 'malformed_header') {
    throw new WebhookVerificationError('malformed_header', `The ${names} header is not "t=<unix seconds>,v1=<hex>[,v1=<hex>…]".`, { echo: echoValue(payload, undefined, secrets[0]) });
  }
  const signed: SignedRequest = read;
  // Signature before time, as Stripe does: an unsigned timestamp says nothing worth reporting.
  const expected = secrets.map((secret) => scheme.signature(secret, signed, payload));
  const header = headerOf(headers, scheme.headers[0]) ?? '';
  if (!signed.signatures.some((v1) => expected.some((e) => constantTimeEqual(v1, e)))) {
    throw new WebhookVerificationError('no_matching_signature', 'No v1 signature matches: check the secret, and verify the raw body bytes (not JSON parsed and serialised again).', {
      likely: likelyCause(payload, header, secrets, now, toleranceSeconds, (code) => code !== 'stale_timestamp' && code !== 'future_timestamp'),
      echo: echoValue(payload, signed.timestamp, secrets[0]),
    });
  }
  const skew = now - signed.timestamp;
  if (Math.abs(skew) > toleranceSeconds) {
    const direction = skew > 0 ? `${skew} s old` : `${-skew} s in the future`;
    throw new WebhookVerificationError('timestamp_outside_tolerance', `The signature is ${direction}; the tolerance is ${toleranceSeconds} s.`, {
      likely: likelyCause(payload, header, secrets, now, toleranceSeconds, (code) => code === 'stale_timestamp' || code === 'future_timestamp'),
      echo: echoValue(payload, signed.timestamp, secrets[0]),
    });
  }
  const text = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  return JSON.parse(text) as WebhookEnvelope<Data>;
}
