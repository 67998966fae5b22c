import { attemptSpanId, attemptTrace } from './trace-context.ts';

/** What a span knows of the attempt it stands for. */
interface AttemptSpanStart {
  tenantId: string;
  deliveryId: string;
  topic: string;
  number: number;
  trigger: string;
  url: string;
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

/** The attempt before this one in the delivery's trace (retries, replays and resends link to it), if any. */
export const previousAttemptSpanId = (traceId: string, attemptNumber: number): string | null =>
  attemptNumber > 1 ? attemptSpanId(traceId, attemptNumber - 1) : null;
