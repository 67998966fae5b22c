import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine, call } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { SseClient } from '../../helpers/sse.ts';
import { placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('the stream carries delivery.created, attempt.finished and delivery.updated for the sandbox only', async () => {
  const sb = await createSandbox(engine.url);
  const other = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  await registerEndpoint(other, receiver.url, ['order.placed']);
  const sse = new SseClient(`${engine.url}/api/v1/events/stream`, { authorization: `Bearer ${sb.token}` });
  const res = await sse.open();
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  try {
    await placeOrder(other);
    await placeOrder(sb);
    const created = await sse.waitFor((m) => m.event === 'delivery.created');
    await sse.waitFor((m) => m.event === 'delivery.updated' && m.data.status === 'succeeded');
    const finished = await sse.waitFor((m) => m.event === 'attempt.finished');
    assert.equal(finished.data.id, created.data.id);
    assert.equal(finished.data.responseStatus, 200);
    const mine = (await sb.api('/api/v1/webhooks/deliveries')).body.data.map((d: any) => d.id);
    assert.ok(
      sse.messages.every((m) => mine.includes(m.data.id)),
      'no message about another sandbox',
    );
    assert.ok(
      sse.messages.every((m) => /^\d+$/.test(m.id ?? '')),
      "every message has an id: its number in the sandbox's stream",
    );
  } finally {
    sse.close();
  }
});

test('reconnecting with Last-Event-ID replays what was missed; an unknown id gets reset', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  const first = new SseClient(`${engine.url}/api/v1/events/stream`, { authorization: `Bearer ${sb.token}` });
  await first.open();
  await placeOrder(sb);
  const seen = await first.waitFor((m) => m.event === 'delivery.updated');
  first.close();

  const n = receiver.received.length;
  await placeOrder(sb);
  await receiver.waitFor(n + 1);
  const resumed = new SseClient(`${engine.url}/api/v1/events/stream`, {
    authorization: `Bearer ${sb.token}`,
    'last-event-id': seen.id!,
  });
  await resumed.open();
  try {
    const missed = await resumed.waitFor((m) => m.event === 'delivery.created');
    const latest = (await sb.api('/api/v1/webhooks/deliveries')).body.data[0];
    assert.equal(missed.data.id, latest.id, 'the delivery created while disconnected');
  } finally {
    resumed.close();
  }

  const stale = new SseClient(`${engine.url}/api/v1/events/stream`, {
    authorization: `Bearer ${sb.token}`,
    'last-event-id': 'oldboot-42',
  });
  await stale.open();
  try {
    const reset = await stale.waitFor((m) => m.event === 'reset');
    assert.equal(reset.data.reason, 'cannot_resume');
  } finally {
    stale.close();
  }
});

test('a sandbox reset tells stream clients to refetch', async () => {
  const sb = await createSandbox(engine.url);
  const sse = new SseClient(`${engine.url}/api/v1/events/stream`, { authorization: `Bearer ${sb.token}` });
  await sse.open();
  try {
    await sb.api('/api/v1/sandbox/reset', { method: 'POST' });
    const reset = await sse.waitFor((m) => m.event === 'reset');
    assert.equal(reset.data.reason, 'sandbox_reset');
  } finally {
    sse.close();
  }
});

test('a clock advance, whoever makes it, tells stream clients the new clock (clock.advanced)', async () => {
  const sb = await createSandbox(engine.url);
  const other = await createSandbox(engine.url);
  const sse = new SseClient(`${engine.url}/api/v1/events/stream`, { authorization: `Bearer ${sb.token}` });
  await sse.open();
  try {
    await other.api('/api/v1/sandbox/clock/advance', { body: { seconds: 120 } });
    const advanced = (await sb.api('/api/v1/sandbox/clock/advance', { body: { seconds: 90 } })).body;
    const message = await sse.waitFor((m) => m.event === 'clock.advanced');
    assert.deepEqual(message.data, { now: advanced.now, offsetSeconds: 90 });
    assert.equal(
      sse.messages.filter((m) => m.event === 'clock.advanced').length,
      1,
      "another sandbox's advance is not this stream's",
    );
  } finally {
    sse.close();
  }
});

test('the stream needs webhooks:read; the admin cookie with ?sandbox= works for EventSource', async () => {
  const sb = await createSandbox(engine.url);
  problem(await call(engine.url, '/api/v1/events/stream'), 401, 'missing_token');
  const cookie = `sandbay_admin_${engine.running.port}=${engine.running.adminKey}`;
  const sse = new SseClient(`${engine.url}/api/v1/events/stream?sandbox=${sb.id}`, { cookie });
  const res = await sse.open();
  assert.equal(res.status, 200);
  try {
    await registerEndpoint(sb, receiver.url, ['order.placed']);
    await placeOrder(sb);
    await sse.waitFor((m) => m.event === 'delivery.created');
  } finally {
    sse.close();
  }
});
