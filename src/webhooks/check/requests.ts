import { createHmac, sign as ed25519Sign } from 'node:crypto';
import { newId } from '../../shared/ids.ts';
import { formatSignatureHeader, signatureHeaderName } from '../../shared/signature.ts';
import { attemptHeaders, mainSignatureHeader } from '../../shared/delivery-headers.ts';
import type { Topic } from '../../shared/topics.ts';
import { jsonFormById, writeJson, type JsonFormId } from '../../shared/json-forms.ts';
import { buildEnvelope } from '../envelope.ts';
import { signatureHeader, v1Signature } from '../../receiver/sign.ts';
import { privateKeyOf } from '../../receiver/ed25519-keys.ts';
import { signRequest } from '../../receiver/schemes.ts';
import { standardHmacKey } from '../../shared/schemes.ts';
import type { AttemptSigning } from '../attempt-signing.ts';
import { newSigningKey, newWebhookSecret, type SigningKeys } from '../endpoint-keys.ts';

/** How one check request is signed: like production, or with one deliberate fault. */
export type Signing =
  | 'valid'
  | 'tampered'
  | 'wrong-secret'
  | 'stale'
  | 'future'
  | 'none'
  | 'rotation'
  /** Probes: the key a receiver would use if it stripped the prefix, or base64-decoded the rest (Svix's scheme). */
  | 'stripped-prefix'
  | 'decoded-key'
  /**
   * Standard Webhooks probes, each a receiver's likely mistake: v1 keyed with the whole whsec_ string as
   * UTF-8 (Sandbay's way), or with the base64 after whsec_ left undecoded; "<timestamp>.<body>" signed
   * without the webhook-id; an HMAC of the secret where the endpoint signs v1a (ed25519) only.
   */
  | StandardProbe
  | { header: string };

const standardProbes = ['utf8-key', 'undecoded-key', 'no-id', 'hmac-for-v1a'] as const;
type StandardProbe = (typeof standardProbes)[number];
const sandbayProbes = ['stripped-prefix', 'decoded-key'] as const;
const isStandardProbe = (s: Signing): s is StandardProbe => (standardProbes as readonly unknown[]).includes(s);
const isSandbayProbe = (s: Signing) => (sandbayProbes as readonly unknown[]).includes(s);

/**
 * How the body's bytes are laid out: compact or pretty-printed (pretty ones end with a newline, as
 * most pretty printers write them), non-ASCII as is or as \u escapes, or exactly as one language's
 * JSON serialiser writes the value (the probes that name a re-serialising receiver's language).
 */
export type Layout = 'ascii' | 'ascii-pretty' | 'utf8' | 'utf8-pretty' | { form: JsonFormId };

/** One request of a case: an envelope, its layout and its signature. */
export interface CheckRequest {
  topic: string;
  data: unknown;
  /** The previous request's delivery sent again: same deliveryId and bytes, signed afresh (the duplicate). */
  again?: boolean;
  /** Default `ascii`: compact JSON with non-ASCII text as \uXXXX, so decoding bugs show in utf8-body alone. */
  layout?: Layout;
  /**
   * Drop the pretty layout's trailing newline (signed without it): tells a receiver that trims the body it verifies.
   */
  trim?: boolean;
  /** Pad `data` so the body is exactly this many bytes. */
  bytes?: number;
  signing?: Signing;
  /** Send to the endpoint's URL with its path's trailing slash added or removed (the redirect case). */
  slashToggled?: boolean;
}

/**
 * The URL's other form, `/hook` ↔ `/hook/`: the one a router redirects to or from (Django's APPEND_SLASH,
 * Starlette's and Werkzeug's slash rules, Go's ServeMux). A bare origin has only one form.
 */
export function slashToggled(url: string): string {
  const u = new URL(url);
  if (u.pathname !== '/') u.pathname = u.pathname.endsWith('/') ? u.pathname.slice(0, -1) : `${u.pathname}/`;
  return u.href;
}

/** A request ready to send: the exact bytes and headers of a production delivery (SPEC §5.2). */
export interface BuiltRequest {
  deliveryId: string;
  topic: string;
  data: unknown;
  body: string;
  headers: Record<string, string>;
  signatureHeader: string;
  /** Every signing header sent, by lowercase name. */
  signatureHeaders: Record<string, string>;
  /** The t it is signed at (the real clock; a stale or future case moves it). */
  timestamp: number;
}

const skewSeconds = 600;

const toAscii = (json: string) =>
  json.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function layOut(envelope: object, layout: Layout): string {
  if (typeof layout === 'object') return writeJson(envelope, jsonFormById(layout.form));
  const pretty = layout.endsWith('pretty');
  const text = pretty ? `${JSON.stringify(envelope, null, 2)}\n` : JSON.stringify(envelope);
  return layout.startsWith('ascii') ? toAscii(text) : text;
}

function padded(envelope: { data: unknown }, layout: Layout, bytes: number): string {
  const base = { ...envelope, data: { ...(envelope.data as object), padding: '' } };
  const missing = bytes - Buffer.byteLength(layOut(base, layout));
  return layOut({ ...base, data: { ...(base.data as object), padding: 'x'.repeat(Math.max(0, missing)) } }, layout);
}

// One byte of the signed body changed: the first digit of the data (an amount, in an order) moves by one.
function tamper(body: string): string {
  const from = body.indexOf('"data"');
  const at = body.slice(from).search(/\d/) + from;
  if (at < from) return body.replace(/"data":\{/, '"data":{ ');
  return body.slice(0, at) + String((Number(body[at]) + 1) % 10) + body.slice(at + 1);
}

/**
 * Sandbay's own header under one fault (SPEC §10). The probes sign with the secret as a receiver may
 * misread it: prefix stripped, or base64-decoded (Standard Webhooks' way).
 */
function sandbayHeader(
  signing: Exclude<Signing, { header: string } | 'none' | StandardProbe>,
  secrets: readonly string[],
  body: string,
  now: number,
): string {
  const sign = (keys: readonly string[], t = now) => signatureHeader(keys, body, t);
  switch (signing) {
    case 'wrong-secret':
      return sign([newWebhookSecret(['sandbay'])]);
    case 'stale':
      return sign(secrets, now - skewSeconds);
    case 'future':
      return sign(secrets, now + skewSeconds);
    case 'rotation':
      return `t=${now},v1=${v1Signature(newWebhookSecret(['sandbay']), now, body)},${sign(secrets).replace(/^t=\d+,/, '')}`;
    case 'stripped-prefix':
      return sign(secrets.map((s) => s.replace(/^whsec_/, '')));
    case 'decoded-key': {
      const v1 = secrets.map((s) =>
        createHmac('sha256', Buffer.from(s.replace(/^whsec_/, ''), 'base64'))
          .update(`${now}.${body}`, 'utf8')
          .digest('hex'),
      );
      return formatSignatureHeader(now, v1);
    }
    default:
      return sign(secrets); // valid, and tampered (signed before the byte changes)
  }
}

/**
 * A Standard Webhooks probe's webhook-signature: the tokens a receiver making that mistake computes and
 * accepts (base64 HMACs with the secret misread or the id left out; ed25519 over the string without the id).
 */
function probeSignature(probe: StandardProbe, run: AttemptSigning, id: string, body: string, now: number): string {
  const hmac = (key: Uint8Array | string, message: string) =>
    createHmac('sha256', key).update(message).update(body).digest('base64');
  const decoded = run.keys.secrets.map((s) => standardHmacKey(s)).filter((k) => k !== undefined);
  switch (probe) {
    case 'utf8-key':
      return run.keys.secrets.map((s) => `v1,${hmac(s, `${id}.${now}.`)}`).join(' ');
    case 'undecoded-key':
      return run.keys.secrets.map((s) => `v1,${hmac(s.replace(/^whsec_/, ''), `${id}.${now}.`)}`).join(' ');
    case 'hmac-for-v1a':
      return decoded.flatMap((k) => [`v1,${hmac(k, `${id}.${now}.`)}`, `v1a,${hmac(k, `${id}.${now}.`)}`]).join(' ');
    case 'no-id': {
      const v1 = run.schemes.includes('standard-webhooks') ? decoded.map((k) => `v1,${hmac(k, `${now}.`)}`) : [];
      const v1a = run.schemes.includes('standard-webhooks-ed25519')
        ? run.keys.signingKeys
            .map((k) => privateKeyOf(k))
            .filter((k) => k !== undefined)
            .map((k) => `v1a,${ed25519Sign(null, Buffer.from(`${now}.${body}`, 'utf8'), k).toString('base64')}`)
        : [];
      return [...v1, ...v1a].join(' ');
    }
  }
}

/** Standard Webhooks' three headers under one fault, every signature of its schemes faulted alike. */
function standardHeadersFor(
  signing: Exclude<Signing, { header: string } | 'none' | 'stripped-prefix' | 'decoded-key'>,
  run: AttemptSigning,
  id: string,
  body: string,
  now: number,
): Record<string, string> {
  const ids = run.schemes.filter((s) => s !== 'sandbay');
  const t = signing === 'stale' ? now - skewSeconds : signing === 'future' ? now + skewSeconds : now;
  const sign = (keys: SigningKeys) =>
    signRequest(ids, { id, timestamp: t, payload: body, secrets: keys.secrets, signingKeys: keys.signingKeys });
  const other = () => ({ secrets: [newWebhookSecret(['standard-webhooks'])], signingKeys: [newSigningKey()] });
  if (signing === 'wrong-secret') return sign(other());
  if (signing === 'rotation') {
    // An old key's signature first, then the valid ones: one per scheme, space-separated.
    const old = sign(other())['webhook-signature'];
    const valid = sign(run.keys);
    return { ...valid, 'webhook-signature': `${old} ${valid['webhook-signature']}` };
  }
  if (isStandardProbe(signing))
    return {
      'webhook-id': id,
      'webhook-timestamp': String(now),
      'webhook-signature': probeSignature(signing, run, id, body, now),
    };
  return sign(run.keys);
}

/**
 * Every signing header of one request, by lowercase name, under the case's signing (Sandbay's and/or Standard
 * Webhooks').
 */
function signingHeaders(
  signing: Signing,
  run: AttemptSigning,
  id: string,
  body: string,
  now: number,
): Record<string, string> {
  const sandbay = run.schemes.includes('sandbay');
  const standard = run.schemes.some((s) => s !== 'sandbay');
  const out: Record<string, string> = {};
  if (typeof signing === 'object' || signing === 'none') {
    // A broken or missing signature header: the others (webhook-id, webhook-timestamp) stay, as a real one would send
    // them.
    if (standard) Object.assign(out, { 'webhook-id': id, 'webhook-timestamp': String(now) });
    if (typeof signing === 'object') {
      if (sandbay) out[signatureHeaderName.toLowerCase()] = signing.header;
      if (standard) out['webhook-signature'] = signing.header;
    }
    return out;
  }
  if (sandbay && !isStandardProbe(signing))
    out[signatureHeaderName.toLowerCase()] = sandbayHeader(signing, run.keys.secrets, body, now);
  if (standard && !isSandbayProbe(signing))
    Object.assign(
      out,
      standardHeadersFor(
        signing as Exclude<Signing, { header: string } | 'none' | 'stripped-prefix' | 'decoded-key'>,
        run,
        id,
        body,
        now,
      ),
    );
  return out;
}

/** Builds the body and headers of one request, signed now (real clock) in the run's schemes with its keys. */
export function buildRequest(
  req: CheckRequest,
  context: { tenantId: string; signing: AttemptSigning; now: number; occurredAt: Date; previous?: BuiltRequest },
): BuiltRequest {
  const deliveryId = (req.again && context.previous?.deliveryId) || newId('dlv');
  const layout = req.layout ?? 'ascii';
  // The data goes in as given (not through JSON): a probe's JsonFloat must reach the writer.
  const fields = JSON.parse(
    buildEnvelope({
      topic: req.topic as Topic,
      deliveryId,
      tenantId: context.tenantId,
      occurredAt: context.occurredAt,
      data: null,
      schemes: context.signing.schemes,
    }),
  );
  const envelope = { ...fields, data: req.data };
  const laidOut = req.bytes ? padded(envelope, layout, req.bytes) : layOut(envelope, layout);
  const signed = req.trim ? laidOut.trimEnd() : laidOut;
  const signing = req.signing ?? 'valid';
  const signatureHeaders = signingHeaders(signing, context.signing, deliveryId, signed, context.now);
  const body = signing === 'tampered' ? tamper(signed) : signed;
  const headers = attemptHeaders(req.topic, deliveryId, { signature: context.signing.schemes, signatureHeaders });
  const timestamp =
    signing === 'stale' ? context.now - skewSeconds : signing === 'future' ? context.now + skewSeconds : context.now;
  const signatureHeader = mainSignatureHeader(signatureHeaders);
  return { deliveryId, topic: req.topic, data: req.data, body, headers, signatureHeader, signatureHeaders, timestamp };
}
