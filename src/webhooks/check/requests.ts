import { createHmac } from 'node:crypto';
import { newId, randomString } from '../../shared/ids.ts';
import { formatSignatureHeader, signatureHeaderName } from '../../shared/signature.ts';
import { secretPrefix } from '../../shared/receiver-doctor.ts';
import type { Topic } from '../../shared/topics.ts';
import { jsonFormById, writeJson, type JsonFormId } from '../../shared/json-forms.ts';
import { buildEnvelope } from '../envelope.ts';
import { signatureHeader, v1Signature } from '../../receiver/sign.ts';

/** How one check request is signed: like production, or with one deliberate fault. */
export type Signing =
  | 'valid' | 'tampered' | 'wrong-secret' | 'stale' | 'future' | 'none' | 'rotation'
  /** Probes: the key a receiver would use if it stripped the prefix, or base64-decoded the rest (Svix's scheme). */
  | 'stripped-prefix' | 'decoded-key'
  | { header: string };

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
  /** Drop the pretty layout's trailing newline (signed without it): tells a receiver that trims the body it verifies. */
  trim?: boolean;
  /** Pad `data` so the body is exactly this many bytes. */
  bytes?: number;
  signing?: Signing;
}

/** A request ready to send: the exact bytes and headers of a production delivery (SPEC §5.2). */
export interface BuiltRequest {
  deliveryId: string;
  topic: string;
  data: unknown;
  body: string;
  headers: Record<string, string>;
  signatureHeader: string;
  /** The t it is signed at (the real clock; a stale or future case moves it). */
  timestamp: number;
}

export const skewSeconds = 600;

const toAscii = (json: string) => json.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

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

function headerFor(signing: Signing, secrets: readonly string[], body: string, now: number): string | null {
  if (typeof signing === 'object') return signing.header;
  const sign = (keys: readonly string[], t = now) => signatureHeader(keys, body, t);
  switch (signing) {
    case 'none': return null;
    case 'wrong-secret': return sign([`${secretPrefix}${randomString(32)}`]);
    case 'stale': return sign(secrets, now - skewSeconds);
    case 'future': return sign(secrets, now + skewSeconds);
    case 'rotation': return `t=${now},v1=${v1Signature(`${secretPrefix}${randomString(32)}`, now, body)},${sign(secrets).replace(/^t=\d+,/, '')}`;
    case 'stripped-prefix': return sign(secrets.map((s) => s.replace(/^whsec_/, '')));
    case 'decoded-key': {
      const v1 = secrets.map((s) => createHmac('sha256', Buffer.from(s.replace(/^whsec_/, ''), 'base64')).update(`${now}.${body}`, 'utf8').digest('hex'));
      return formatSignatureHeader(now, v1);
    }
    default: return sign(secrets); // valid, and tampered (signed before the byte changes)
  }
}

/** Builds the body and headers of one request, signed now (real clock) with the run's secrets. */
export function buildRequest(
  req: CheckRequest, context: { tenantId: string; secrets: readonly string[]; now: number; occurredAt: Date; previous?: BuiltRequest },
): BuiltRequest {
  const deliveryId = (req.again && context.previous?.deliveryId) || newId('dlv');
  const layout = req.layout ?? 'ascii';
  // The data goes in as given (not through JSON): a probe's JsonFloat must reach the writer.
  const envelope = { ...JSON.parse(buildEnvelope({ topic: req.topic as Topic, deliveryId, tenantId: context.tenantId, occurredAt: context.occurredAt, data: null })), data: req.data };
  const laidOut = req.bytes ? padded(envelope, layout, req.bytes) : layOut(envelope, layout);
  const signed = req.trim ? laidOut.trimEnd() : laidOut;
  const signing = req.signing ?? 'valid';
  const header = headerFor(signing, context.secrets, signed, context.now);
  const body = signing === 'tampered' ? tamper(signed) : signed;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Sandbay-Webhooks/1.0',
    'x-service-topic': req.topic,
    'x-service-delivery-id': deliveryId,
  };
  if (header !== null) headers[signatureHeaderName.toLowerCase()] = header;
  const timestamp = signing === 'stale' ? context.now - skewSeconds : signing === 'future' ? context.now + skewSeconds : context.now;
  return { deliveryId, topic: req.topic, data: req.data, body, headers, signatureHeader: header ?? '', timestamp };
}
