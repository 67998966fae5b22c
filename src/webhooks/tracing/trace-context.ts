import { createHash } from 'node:crypto';

/**
 * W3C Trace Context for deliveries (https://www.w3.org/TR/trace-context/): one trace per delivery, one span
 * per attempt. Both ids are derived, not stored: the trace id from the sandbox and the delivery id (random
 * already), the span id from the trace id and the attempt's number, so the dispatcher, the API and the
 * inspector name the same span without a column or a lookup.
 */
const hexDigest = (text: string, hexChars: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, hexChars);

/** The delivery's trace id: 32 lowercase hex digits. */
export const deliveryTraceId = (tenantId: string, deliveryId: string): string =>
  hexDigest(`sandbay-trace\u0000${tenantId}\u0000${deliveryId}`, 32);

/** The span id of attempt `number` in trace `traceId`: 16 lowercase hex digits. */
export const attemptSpanId = (traceId: string, attemptNumber: number): string =>
  hexDigest(`${traceId}\u0000attempt\u0000${attemptNumber}`, 16);

/** The `traceparent` header an attempt carries: version 00, sampled. */
export const traceparent = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;

/** An attempt's ids and its `traceparent` header. */
export function attemptTrace(tenantId: string, deliveryId: string, attemptNumber: number) {
  const traceId = deliveryTraceId(tenantId, deliveryId);
  const spanId = attemptSpanId(traceId, attemptNumber);
  return { traceId, spanId, traceparent: traceparent(traceId, spanId) };
}

/**
 * Where a resend's trace links back to (issue 31): the original delivery's trace and its last attempt's span when
 * the resend was made; no span when that delivery had not been attempted yet.
 */
export function originTrace(tenantId: string, resentFrom: { id: string; attempt: number | null }) {
  const traceId = deliveryTraceId(tenantId, resentFrom.id);
  return { traceId, spanId: resentFrom.attempt ? attemptSpanId(traceId, resentFrom.attempt) : null };
}
