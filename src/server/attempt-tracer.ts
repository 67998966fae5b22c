import { packageVersion } from '../shared/node/package-root.ts';
import { otlpTracesUrl } from '../webhooks/tracing/config.ts';

/** The OTLP exporter of attempt spans when export is on; the SDK is loaded only then (no cost when off). */
export async function attemptTracer(endpoint: string | undefined) {
  const url = otlpTracesUrl(endpoint, process.env);
  if (!url) return undefined;
  const { otlpAttemptTracer } = await import('../webhooks/tracing/otlp.ts');
  return otlpAttemptTracer({
    url,
    serviceName: process.env.OTEL_SERVICE_NAME || 'sandbay',
    serviceVersion: packageVersion(),
  });
}
