import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { linkedSpan, type AttemptTracer } from './attempt-tracer.ts';
import { attemptTrace } from './trace-context.ts';

/**
 * The SDK makes ids up; ours are derived (./trace-context.ts) so that the header sent, the API and the
 * exported span agree. startSpan() is synchronous, so the ids set just before it are the ones it takes.
 */
class DerivedIds implements IdGenerator {
  next = { traceId: '', spanId: '' };
  generateTraceId = () => this.next.traceId;
  generateSpanId = () => this.next.spanId;
}

export interface OtlpOptions {
  /** The OTLP/HTTP traces URL (…/v1/traces); undefined lets the exporter read OTEL_EXPORTER_OTLP_* itself. */
  url?: string;
  serviceName: string;
  serviceVersion: string;
}

/**
 * Exports one CLIENT span per attempt over OTLP/HTTP (protobuf) with the OpenTelemetry SDK, so a receiver
 * instrumented with OpenTelemetry shows Sandbay's attempt as the parent of its own server span. Each
 * attempt's span is a root of the delivery's trace, linked to the attempt before it (a resend's first attempt:
 * to the original's last, in the original's trace). Loaded only when on.
 */
export function otlpAttemptTracer(options: OtlpOptions): AttemptTracer {
  const ids = new DerivedIds();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
    }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter(options.url ? { url: options.url } : {}), {
        scheduledDelayMillis: 1_000,
      }),
    ],
  });
  const tracer = provider.getTracer('sandbay-webhooks', options.serviceVersion);
  return {
    start(a) {
      const trace = attemptTrace(a.tenantId, a.deliveryId, a.number);
      const linked = linkedSpan(a, trace.traceId);
      const url = URL.parse(a.url);
      ids.next = trace;
      const span = tracer.startSpan(`webhook ${a.topic}`, {
        kind: SpanKind.CLIENT,
        root: true,
        attributes: {
          'http.request.method': 'POST',
          'url.full': a.url,
          ...(url && {
            'server.address': url.hostname,
            'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
          }),
          'sandbay.sandbox.id': a.tenantId,
          'sandbay.delivery.id': a.deliveryId,
          'sandbay.topic': a.topic,
          'sandbay.attempt.number': a.number,
          'sandbay.attempt.trigger': a.trigger,
          ...(a.resentFrom && { 'sandbay.delivery.resent_from': a.resentFrom.id }),
        },
        links: linked ? [{ context: { ...linked, traceFlags: TraceFlags.SAMPLED } }] : [],
      });
      return {
        traceparent: trace.traceparent,
        end(outcome) {
          if (outcome.status !== null) span.setAttribute('http.response.status_code', outcome.status);
          if (outcome.ok) span.setStatus({ code: SpanStatusCode.OK });
          else {
            span.setAttribute('error.type', outcome.status !== null ? String(outcome.status) : 'connection');
            span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? `HTTP ${outcome.status}` });
          }
          span.end();
        },
      };
    },
    close: () => provider.shutdown(),
  };
}
