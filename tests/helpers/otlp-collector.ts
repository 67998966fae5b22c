import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';

// OTLP's protobuf messages as generated from the official opentelemetry-proto definitions (the
// OpenTelemetry JavaScript project's build of them), not a hand parser.
const { opentelemetry } = createRequire(import.meta.url)('otlp-proto-definitions/build/src/generated/root.js');
const ExportTraceServiceRequest = opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export interface CollectedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  links: { traceId: string; spanId: string }[];
  status: { code: number; message: string };
  attributes: Record<string, unknown>;
  serviceName: unknown;
}

const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');
// protobuf's int64 arrives as a number, or as { low, high } where no Long library is loaded.
const int64 = (v: unknown) =>
  typeof v === 'object' && v !== null && 'low' in v
    ? ((v as { low: number; high: number }).high * 2 ** 32 + (v as { low: number }).low) >>> 0
    : Number(v);
const valueOf = (v: Record<string, unknown>) =>
  v.stringValue ?? (v.intValue !== undefined && v.intValue !== null ? int64(v.intValue) : (v.boolValue ?? null));
const attributesOf = (list: { key: string; value: Record<string, unknown> }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP traces endpoint on loopback that decodes what it is sent (protobuf) and keeps every span. */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  private server?: Server;
  private waiters: (() => void)[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/x-protobuf') {
          res.writeHead(415).end();
          return;
        }
        const request = ExportTraceServiceRequest.decode(Buffer.concat(chunks));
        for (const rs of request.resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              this.spans.push({
                name: s.name,
                kind: s.kind,
                traceId: hex(s.traceId),
                spanId: hex(s.spanId),
                parentSpanId: hex(s.parentSpanId),
                links: (s.links ?? []).map((l: { traceId: Uint8Array; spanId: Uint8Array }) => ({
                  traceId: hex(l.traceId),
                  spanId: hex(l.spanId),
                })),
                status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
                attributes: attributesOf(s.attributes),
                serviceName: attributesOf(rs.resource?.attributes)['service.name'],
              });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    return this;
  }

  get url(): string {
    const address = this.server!.address();
    if (!address || typeof address === 'string') throw new Error('collector not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Resolves once `count` spans satisfy `match` (exports come in batches, a second or so apart). */
  async waitFor(match: (s: CollectedSpan) => boolean, count: number, timeoutMs = 20_000): Promise<CollectedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline)
        throw new Error(`only ${found.length} of ${count} spans arrived: ${JSON.stringify(this.spans)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 250);
      });
    }
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
