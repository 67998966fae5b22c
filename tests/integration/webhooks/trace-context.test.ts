import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';
import { otlpTracesUrl } from '../../../src/webhooks/tracing/config.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const traceparentShape = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

test('every attempt carries a W3C traceparent: one trace per delivery, a span per attempt, as the API shows it', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  receiver.behaviour = { kind: 'status', status: 500, body: 'down' };
  const before = receiver.received.length;
  await placeOrder(sb);
  const [first] = (await receiver.waitFor(before + 1)).slice(before);
  const id = first.headers['x-service-delivery-id'] as string;
  await waitForDelivery(sb, id, (d) => d.attempts.length === 1);
  receiver.behaviour = { kind: 'status', status: 200, body: 'ok' };
  await advance(sb, 30);
  const second = (await receiver.waitFor(before + 2))[before + 1];
  const d = await waitForDelivery(sb, id, (x) => x.status === 'succeeded');

  const [, traceId, firstSpan] = traceparentShape.exec(first.headers.traceparent as string)!;
  const [, secondTrace, secondSpan] = traceparentShape.exec(second.headers.traceparent as string)!;
  assert.equal(secondTrace, traceId, 'a retry stays in its delivery’s trace');
  assert.notEqual(secondSpan, firstSpan, 'each attempt is a span of its own');
  assert.equal(d.traceId, traceId);
  assert.deepEqual(
    d.attempts.map((a: { traceparent: string }) => a.traceparent),
    [first.headers.traceparent, second.headers.traceparent],
  );
});

test('two deliveries of one event are two traces', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, `${receiver.url}?a`, ['order.placed']);
  await registerEndpoint(sb, `${receiver.url}?b`, ['order.placed']);
  const before = receiver.received.length;
  await placeOrder(sb);
  const got = (await receiver.waitFor(before + 2)).slice(before);
  const traces = got.map((r) => traceparentShape.exec(r.headers.traceparent as string)![1]);
  assert.notEqual(traces[0], traces[1]);
});

test('export is off unless asked for: --otlp-endpoint, else the OpenTelemetry SDK’s own variables', () => {
  assert.equal(otlpTracesUrl(undefined, {}), null);
  assert.equal(otlpTracesUrl('http://127.0.0.1:4318/', {}), 'http://127.0.0.1:4318/v1/traces');
  assert.equal(otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), 'http://c:4318/v1/traces');
  assert.equal(
    otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }),
    'http://c:4318/custom',
  );
  assert.equal(otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' }), null);
  assert.equal(
    otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' }),
    null,
  );
});
