import type { FindingCode } from '../shared/doctor-codes.ts';
import { isSchemeName, schemeNames, type SchemeName } from '../shared/schemes.ts';
import { defaultToleranceSeconds, signatureHeaderName } from '../shared/signature.ts';
import type { Topic } from '../shared/topics.ts';
import { echoValue } from './echo.ts';
import { likelyCause, mismatchCause, type LikelyCause } from './hint.ts';
import {
  headerOf,
  sandbayScheme,
  schemeById,
  schemes,
  type HeaderSource,
  type SignatureScheme,
  type SignedRequest,
} from './schemes.ts';

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

export type VerificationFailure =
  'no_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature';

/** Thrown by verifyWebhook; `reason` is the stable part to branch on. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  /**
   * The likeliest cause the receiver doctor can tell from the payload, header and secret, with the
   * fix in Node (e.g. "The JSON was parsed and serialised again: … In Node.js: …"), for logs and humans; not for
   * branching.
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

  constructor(
    readonly reason: VerificationFailure,
    message: string,
    extra: { likely?: { code: FindingCode; text: string }; echo?: string } = {},
  ) {
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
  /**
   * The endpoint's secret, or every live key during a rotation: whsec_… secrets verify Sandbay's
   * scheme and Standard Webhooks' v1, whpk_… public keys its v1a (ed25519).
   */
  secret: string | readonly string[];
  /** The scheme to require instead of reading it off the headers (SPEC §11). */
  scheme?: SchemeName;
  /** How far the signature time may be from `now`, either way (default 300 s; Infinity turns the check off). */
  toleranceSeconds?: number;
  /** Unix seconds (default: the real clock). */
  now?: number;
}

/** The body of a Standard Webhooks delivery (SPEC §11). */
export interface StandardWebhookPayload<Data = unknown> {
  /** The topic. */
  type: Topic | (string & {});
  /** When the event occurred (ISO 8601). */
  timestamp: string;
  data: Data;
}

function checkArguments(
  options: VerifyWebhookOptions,
  secrets: readonly string[],
  toleranceSeconds: number,
  now: number,
): void {
  // A parsed object here is the classic mistake (a JSON body parser ran first): say so plainly.
  if (typeof options.payload !== 'string' && !(options.payload instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: payload must be the raw body as a string or Buffer, not a parsed object');
  }
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook: secret must be a non-empty string or an array of them');
  }
  if (options.scheme !== undefined && !isSchemeName(options.scheme))
    throw new TypeError(`verifyWebhook: scheme must be one of ${schemeNames.join(', ')}`);
  const header = Array.isArray(options.header) ? options.header.join(' ') : options.header;
  // A Standard Webhooks receiver passing webhook-signature alone: its id and timestamp are signed too.
  const standardValue = !options.headers && typeof header === 'string' && /^\s*v1a?,/.test(header);
  if (standardValue || (options.scheme && options.scheme !== 'sandbay' && !options.headers)) {
    throw new TypeError(
      "verifyWebhook: Standard Webhooks signs three headers (webhook-id, webhook-timestamp, webhook-signature): pass the request's `headers`",
    );
  }
  if (!(toleranceSeconds >= 0)) throw new TypeError('verifyWebhook: toleranceSeconds must be a number ≥ 0');
  if (!Number.isFinite(now)) throw new TypeError('verifyWebhook: now must be unix seconds');
}

/**
 * The schemes to try, and the headers to read them from: the one named; else those whose headers the
 * request carries (Standard Webhooks' two when webhook-signature is there, each only with keys of its
 * own kind), Sandbay's otherwise.
 */
function candidatesOf(
  options: VerifyWebhookOptions,
  keys: readonly string[],
): { schemes: SignatureScheme[]; headers: HeaderSource } {
  if (!options.headers) {
    const header = Array.isArray(options.header)
      ? options.header.join(',')
      : (options.header as string | null | undefined);
    return { schemes: [sandbayScheme], headers: header == null ? {} : { [signatureHeaderName]: header } };
  }
  if (options.scheme) return { schemes: [schemeById(options.scheme)], headers: options.headers };
  const present = schemes.filter((s) => headerOf(options.headers!, s.headers[0]) !== undefined);
  const usable = present.filter((s) => keys.some((k) => s.verifiesWith(k)));
  return {
    schemes: usable.length ? usable : present.length ? [present[0]] : [sandbayScheme],
    headers: options.headers,
  };
}

type Outcome = { ok: true; signed: SignedRequest } | { ok: false; error: WebhookVerificationError };
// When several schemes fail, the failure that got furthest is the one worth reporting.
const rank: Record<VerificationFailure, number> = {
  no_header: 0,
  malformed_header: 1,
  no_matching_signature: 2,
  timestamp_outside_tolerance: 3,
};

function verifyWith(
  scheme: SignatureScheme,
  headers: HeaderSource,
  options: VerifyWebhookOptions,
  keys: readonly string[],
  toleranceSeconds: number,
  now: number,
): Outcome {
  const { payload } = options;
  const sandbay = scheme.id === 'sandbay';
  const echo = (t?: number) => (sandbay ? echoValue(payload, t, keys[0]) : undefined);
  const fail = (reason: VerificationFailure, message: string, likely?: LikelyCause, t?: number): Outcome => ({
    ok: false,
    error: new WebhookVerificationError(reason, message, { likely, echo: echo(t) }),
  });
  const read = scheme.read(headers);
  const names = scheme.headers.join(', ');
  if (read === 'no_header') return fail('no_header', `No ${scheme.headers[0]} header on the request.`);
  if (read === 'malformed_header')
    return fail(
      'malformed_header',
      `The ${names} header${scheme.headers.length > 1 ? 's are' : ' is'} not "${scheme.format}".`,
    );
  const ownKeys = keys.filter((k) => scheme.verifiesWith(k));
  // What the doctor reads: Sandbay's header value, or Standard Webhooks' three as "name: value" lines.
  const header = sandbay
    ? (headerOf(headers, scheme.headers[0]) ?? '')
    : scheme.headers.map((h) => `${h}: ${headerOf(headers, h) ?? ''}`).join('\n');
  // Signature before time, as Stripe does: an unsigned timestamp says nothing worth reporting.
  if (!scheme.matches(read, payload, ownKeys)) {
    const what = sandbay
      ? 'v1'
      : scheme.id === 'standard-webhooks'
        ? "v1 (base64 HMAC, keyed with the secret's base64 decoded)"
        : 'v1a (ed25519, checked with a whpk_ public key)';
    return fail(
      'no_matching_signature',
      `No ${what} signature matches: check the ${sandbay || scheme.id === 'standard-webhooks' ? 'secret' : 'public key'}, and verify the raw body bytes (not JSON parsed and serialised again).`,
      mismatchCause(
        scheme.id === 'standard-webhooks-ed25519',
        payload,
        header,
        ownKeys.length ? ownKeys : keys,
        now,
        toleranceSeconds,
        (code) => code !== 'stale_timestamp' && code !== 'future_timestamp',
      ),
      read.timestamp,
    );
  }
  const skew = now - read.timestamp;
  if (Math.abs(skew) > toleranceSeconds) {
    const direction = skew > 0 ? `${skew} s old` : `${-skew} s in the future`;
    return fail(
      'timestamp_outside_tolerance',
      `The signature is ${direction}; the tolerance is ${toleranceSeconds} s.`,
      likelyCause(
        payload,
        header,
        ownKeys,
        now,
        toleranceSeconds,
        (code) => code === 'stale_timestamp' || code === 'future_timestamp',
      ),
      read.timestamp,
    );
  }
  return { ok: true, signed: read };
}

/**
 * Verifies a webhook the way Stripe's constructEvent does and returns its parsed body; throws
 * WebhookVerificationError (with a `reason`) when it must be rejected. Given the request's `headers`
 * it reads the scheme off them (SPEC §11): Sandbay's, or Standard Webhooks' (v1 and v1a), whichever
 * the keys can verify; `scheme` requires one. Name a Standard Webhooks scheme to have its payload typed.
 */
export function verifyWebhook<Data = unknown>(
  options: VerifyWebhookOptions & { scheme: 'standard-webhooks' | 'standard-webhooks-ed25519' },
): StandardWebhookPayload<Data>;
export function verifyWebhook<Data = unknown, Envelope = WebhookEnvelope<Data>>(
  options: VerifyWebhookOptions,
): Envelope;
export function verifyWebhook(options: VerifyWebhookOptions): unknown {
  const { payload, toleranceSeconds = defaultToleranceSeconds, now = Math.floor(Date.now() / 1000) } = options;
  const keys = typeof options.secret === 'string' ? [options.secret] : options.secret;
  checkArguments(options, keys, toleranceSeconds, now);
  const { schemes: tried, headers } = candidatesOf(options, keys);
  let failure: WebhookVerificationError | undefined;
  for (const scheme of tried) {
    const outcome = verifyWith(scheme, headers, options, keys, toleranceSeconds, now);
    if (outcome.ok) {
      const text =
        typeof payload === 'string'
          ? payload
          : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
      return JSON.parse(text);
    }
    if (!failure || rank[outcome.error.reason] > rank[failure.reason]) failure = outcome.error;
  }
  throw failure!;
}
