/**
 * Where attempt spans go, or null when export is off (the default): `--otlp-endpoint` (a base URL, like
 * OTEL_EXPORTER_OTLP_ENDPOINT), else the OpenTelemetry SDK's own variables, which OTEL_SDK_DISABLED and
 * OTEL_TRACES_EXPORTER=none turn off as they do in any instrumented service.
 */
export function otlpTracesUrl(endpoint: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const traces = (base: string) => `${base.replace(/\/+$/, '')}/v1/traces`;
  if (endpoint) return traces(endpoint);
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return null;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return traces(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  return null;
}
