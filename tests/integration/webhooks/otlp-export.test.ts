import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { OtlpCollector } from '../../helpers/otlp-collector.ts';
import { advance, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const collector = new OtlpCollector();
await collector.start();
const engine = useEngine({ otlpEndpoint: collector.url });

/** The instrumented receiver's spans, one JSON line each. */
const receiverSpans: { kind: number; traceId: string; spanId: string; parentSpanId: string | null }[] = [];
let receiver: ChildProcess;
let receiverUrl = '';
before(async () => {
  receiver = spawn(process.execPath, [join(import.meta.dirname, '../../fixtures/receivers/otel/receiver.cjs'), '1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: receiver.stdout! });
  const [first] = await once(lines, 'line');
  receiverUrl = `http://127.0.0.1:${JSON.parse(first).port}/webhooks`;
  lines.on('line', (line) => receiverSpans.push(JSON.parse(line)));
});
after(async () => {
  receiver.kill('SIGTERM');
  await collector.close();
});

const serverKind = 1; // the SDK's SpanKind.SERVER
const otlpKind = { client: 3 }; // opentelemetry.proto.trace.v1.Span.SpanKind
const otlpStatus = { ok: 1, error: 2 };

test('a receiver instrumented with OpenTelemetry shows each attempt’s span as the parent of its own; the spans leave over OTLP', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiverUrl, ['order.placed']);
  await placeOrder(sb);
  const list = await sb.api('/api/v1/webhooks/deliveries?topic=order.placed');
  const id = list.body.data[0].id;
  await waitForDelivery(sb, id, (d) => d.attempts.length === 1); // the receiver answers its first request 500
  await advance(sb, 30);
  const d = await waitForDelivery(sb, id, (x) => x.status === 'succeeded');
  const attemptSpans = d.attempts.map((a: { traceparent: string }) => a.traceparent.split('-')[2]);

  // The receiver's own server spans: children of the attempts' spans, in the delivery's trace.
  const deadline = Date.now() + 10_000;
  while (receiverSpans.filter((s) => s.kind === serverKind).length < 2 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const served = receiverSpans.filter((s) => s.kind === serverKind);
  assert.deepEqual(
    served.map((s) => [s.traceId, s.parentSpanId]),
    attemptSpans.map((span: string) => [d.traceId, span]),
  );

  // Sandbay's own spans, decoded with the official OTLP definitions: the same ids, their outcome, linked.
  const exported = await collector.waitFor((s) => s.attributes['sandbay.delivery.id'] === id, 2);
  exported.sort(
    (a, b) => Number(a.attributes['sandbay.attempt.number']) - Number(b.attributes['sandbay.attempt.number']),
  );
  assert.deepEqual(
    exported.map((s) => [s.traceId, s.spanId, s.kind, s.status.code, s.attributes['http.response.status_code']]),
    [
      [d.traceId, attemptSpans[0], otlpKind.client, otlpStatus.error, 500],
      [d.traceId, attemptSpans[1], otlpKind.client, otlpStatus.ok, 200],
    ],
  );
  assert.deepEqual(
    exported[1].links,
    [{ traceId: d.traceId, spanId: attemptSpans[0] }],
    'a retry links to the attempt before',
  );
  assert.equal(exported[0].parentSpanId, '', 'each attempt is a root span of the delivery’s trace');
  assert.equal(exported[0].serviceName, 'sandbay');
  assert.equal(exported[0].attributes['sandbay.topic'], 'order.placed');
  assert.equal(exported[0].attributes['url.full'], receiverUrl);
});
