import type { ResentFrom } from '../outbox.ts';
import { attemptSpanId, attemptTrace, originTrace } from './trace-context.ts';

/** What a span knows of the attempt it stands for. */
interface AttemptSpanStart {
  tenantId: string;
  deliveryId: string;
  topic: string;
  number: number;
  trigger: string;
  url: string;
  /** The delivery this one was resent from (its first attempt's span links to that delivery's last attempt). */
  resentFrom: ResentFrom | null;
}

/** How an attempt ended, as its span records it. */
interface AttemptSpanEnd {
  ok: boolean;
  status: number | null;
  error: string | null;
}

interface AttemptSpan {
  /** The W3C `traceparent` header the attempt carries (SPEC §5.2's headers, plus trace context). */
  readonly traceparent: string;
  end(outcome: AttemptSpanEnd): void;
}

/** Opens one span per attempt; exporting them is optional, the `traceparent` header is not. */
export interface AttemptTracer {
  start(attempt: AttemptSpanStart): AttemptSpan;
  /** Sends what is still buffered and stops. */
  close(): Promise<void>;
}

/** Trace context without export (the default): every attempt carries its `traceparent`, nothing else runs. */
export const headerOnlyTracer: AttemptTracer = {
  start: (a) => ({ traceparent: attemptTrace(a.tenantId, a.deliveryId, a.number).traceparent, end() {} }),
  close: async () => {},
};

/**
 * The span an attempt's span links to, if any: the attempt before it in the delivery's trace (retries and
 * replays), or for a resend's first attempt the original delivery's last attempt, in that delivery's trace.
 */
export function linkedSpan(a: AttemptSpanStart, traceId: string): { traceId: string; spanId: string } | null {
  if (a.number > 1) return { traceId, spanId: attemptSpanId(traceId, a.number - 1) };
  const origin = a.resentFrom && originTrace(a.tenantId, a.resentFrom);
  return origin?.spanId ? { traceId: origin.traceId, spanId: origin.spanId } : null;
}
