import type { Attempt, Delivery, DeliveryComparison } from './api-types.ts';
import { attemptHeaders } from './delivery-headers.ts';
import { jsonPointer } from './json-pointer.ts';
import { parseSignatureHeader } from './signature.ts';
import { standardHeaders } from './schemes.ts';

type JsonChange = DeliveryComparison['envelope'][number];
type HeaderChange = DeliveryComparison['requestHeaders'][number];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointer = (path: string, key: string | number) => `${path}${jsonPointer([key])}`;

/** What changed from `a` to `b`, by JSON Pointer: objects by key, arrays by index, anything else as a whole. */
export function diffJson(a: unknown, b: unknown, path = ''): JsonChange[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    const changes: JsonChange[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= b.length) changes.push({ path: pointer(path, i), op: 'remove', from: a[i] });
      else if (i >= a.length) changes.push({ path: pointer(path, i), op: 'add', to: b[i] });
      else changes.push(...diffJson(a[i], b[i], pointer(path, i)));
    }
    return changes;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => {
      if (!Object.hasOwn(b, k)) return [{ path: pointer(path, k), op: 'remove' as const, from: a[k] }];
      if (!Object.hasOwn(a, k)) return [{ path: pointer(path, k), op: 'add' as const, to: b[k] }];
      return diffJson(a[k], b[k], pointer(path, k));
    });
  }
  return Object.is(a, b) || JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path, op: 'replace', from: a, to: b }];
}

/** Headers that differ, by lowercase name (a missing one is null on its side). */
export function diffHeaders(a: Record<string, string>, b: Record<string, string>): HeaderChange[] {
  const lower = (h: Record<string, string>) =>
    Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  const [x, y] = [lower(a), lower(b)];
  return [...new Set([...Object.keys(x), ...Object.keys(y)])]
    .sort()
    .filter((name) => x[name] !== y[name])
    .map((name) => ({ name, from: x[name] ?? null, to: y[name] ?? null }));
}

/** The attempt to compare: the one asked for, else the latest; undefined when it has none. */
function pick(d: Delivery, number: number | undefined): Attempt | undefined {
  if (number === undefined) return d.attempts.at(-1);
  const found = d.attempts.find((a) => a.number === number);
  if (!found) throw new RangeError(`${d.id} has no attempt ${number}`);
  return found;
}

/** Every header the attempt went out with, as it recorded them (trace context included). */
const requestHeadersOf = (d: Delivery, a: Attempt | undefined) =>
  a ? { ...attemptHeaders(d.topic, d.id, a), ...(a.traceparent ? { traceparent: a.traceparent } : {}) } : {};

/** What an attempt's signatures were computed over. */
function signatureInputsOf(d: Delivery, a: Attempt | undefined): Record<string, unknown> {
  const sandbay = a ? parseSignatureHeader(a.signatureHeaders['x-service-signature'] ?? '') : undefined;
  return {
    schemes: a?.signature.join(', ') ?? null,
    id: a?.signatureHeaders[standardHeaders.id] ?? d.id,
    timestamp: sandbay?.timestamp ?? (a ? Number(a.signatureHeaders[standardHeaders.timestamp]) || null : null),
    bodyBytes: new TextEncoder().encode(d.rawBody).length,
  };
}

/**
 * Two deliveries, or two attempts (of one delivery or two), compared as a receiver developer reads them:
 * the envelope by path, the request's headers, what was signed, and the receiver's answers.
 */
export function compareDeliveries(
  from: Delivery,
  to: Delivery,
  attempts: { from?: number; to?: number } = {},
): DeliveryComparison {
  const [a, b] = [pick(from, attempts.from), pick(to, attempts.to)];
  const side = (d: Delivery, x: Attempt | undefined) => ({
    deliveryId: d.id,
    attempt: x?.number ?? null,
    topic: d.topic,
    status: d.status,
  });
  const [sa, sb] = [signatureInputsOf(from, a), signatureInputsOf(to, b)];
  return {
    from: side(from, a),
    to: side(to, b),
    envelope: diffJson(from.envelope, to.envelope),
    bodyIdentical: from.rawBody === to.rawBody,
    requestHeaders: diffHeaders(requestHeadersOf(from, a), requestHeadersOf(to, b)),
    signatureInputs: Object.keys(sa)
      .filter((k) => sa[k] !== sb[k])
      .map((name) => ({ name, from: sa[name], to: sb[name] })),
    response:
      a && b
        ? {
            status: { from: a.responseStatus, to: b.responseStatus },
            durationMs: { from: a.durationMs, to: b.durationMs },
            error: { from: a.error, to: b.error },
            headers: diffHeaders(a.responseHeaders, b.responseHeaders),
            body: { same: a.responseBody === b.responseBody, from: a.responseBody, to: b.responseBody },
          }
        : null,
  };
}
