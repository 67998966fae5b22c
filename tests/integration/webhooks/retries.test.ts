import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import {
  advance,
  delivery,
  placeOrder,
  registerEndpoint,
  waitForDelivery,
  waitForReplayJob,
} from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

/** A sandbox with an endpoint on a receiver answering `status`, and one delivery that failed once. */
async function failingDelivery(status = 500) {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  rx.behaviour = { kind: 'status', status, body: 'nope' };
  await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  await rx.waitFor(1);
  const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const d = await waitForDelivery(sb, summary.id, (x) => x.attemptCount === 1);
  return { sb, rx, d };
}

const seconds = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;

test('step by step: attempts 2–5 come 30 s, 2 min, 10 min and 1 h after the previous failure, then dead', async () => {
  const { sb, rx, d } = await failingDelivery();
  try {
    assert.equal(d.status, 'pending');
    const gaps = [30, 120, 600, 3600];
    for (const [i, gap] of gaps.entries()) {
      const current = await delivery(sb, d.id);
      const wait = seconds((await sb.api('/api/v1/sandbox/clock')).body.now, current.nextAttemptAt);
      assert.ok(Math.abs(wait - gap) < 2, `next attempt ${gap} s after the failure, got ${wait}`);
      await advance(sb, wait - 1.5);
      assert.equal(rx.received.length, i + 1, 'nothing before it is due');
      await advance(sb, 2);
      assert.equal(rx.received.length, i + 2, 'the attempt ran during the advance');
    }
    const dead = await delivery(sb, d.id);
    assert.equal(dead.status, 'dead');
    assert.equal(dead.nextAttemptAt, null);
    assert.deepEqual(
      dead.attempts.map((a: any) => a.number),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      dead.attempts.map((a: any) => a.trigger),
      ['initial', 'retry', 'retry', 'retry', 'retry'],
    );
    assert.ok(dead.attempts.every((a: any) => a.responseStatus === 500 && a.responseBody === 'nope'));
    assert.equal(new Set(rx.received.map((r) => r.body)).size, 1, 'the same bytes every attempt');
    assert.equal(
      new Set(rx.received.map((r) => r.headers['x-service-delivery-id'])).size,
      1,
      'one deliveryId for all attempts',
    );
  } finally {
    await rx.close();
  }
});

test('one 2 h advance takes a failing delivery through all five attempts to dead, at the right sandbox times', async () => {
  const { sb, rx, d } = await failingDelivery(503);
  try {
    const result = await advance(sb, 7200);
    assert.equal(result.jobsRun, 4);
    assert.equal(result.offsetSeconds, 7200);
    const dead = await delivery(sb, d.id);
    assert.equal(dead.status, 'dead');
    const starts = dead.attempts.map((a: any) => a.startedAt);
    const gaps = starts.slice(1).map((s: string, i: number) => seconds(starts[i], s));
    gaps.forEach((gap: number, i: number) =>
      assert.ok(Math.abs(gap - [30, 120, 600, 3600][i]) < 1, `gap ${i}: ${gap}`),
    );
    assert.ok(
      Math.abs(seconds(starts[0], starts[4]) - 4350) < 2,
      'the 5th attempt comes 1 h 12 min 30 s after the first',
    );
    const dlq = await sb.api('/api/v1/webhooks/dlq');
    assert.deepEqual(
      dlq.body.data.map((x: any) => x.id),
      [d.id],
    );
  } finally {
    await rx.close();
  }
});

test('retry now takes the next slot; a failure schedules the following one from now', async () => {
  const { sb, rx, d } = await failingDelivery();
  try {
    const retried = await sb.api(`/api/v1/webhooks/deliveries/${d.id}/retry`, { method: 'POST' });
    assert.equal(retried.status, 200);
    assert.equal(retried.body.attemptCount, 2);
    assert.equal(retried.body.attempts[1].trigger, 'manual');
    const now = (await sb.api('/api/v1/sandbox/clock')).body.now;
    assert.ok(Math.abs(seconds(now, retried.body.nextAttemptAt) - 120) < 2, 'slot 3 is 2 min after this failure');
    rx.behaviour = { kind: 'status', status: 204 };
    const ok = await sb.api(`/api/v1/webhooks/deliveries/${d.id}/retry`, { method: 'POST' });
    assert.equal(ok.body.status, 'succeeded');
    assert.equal(ok.body.nextAttemptAt, null);
    problem(await sb.api(`/api/v1/webhooks/deliveries/${d.id}/retry`, { method: 'POST' }), 409, 'delivery_succeeded');
    await advance(sb, 7200);
    assert.equal((await delivery(sb, d.id)).attempts.length, 3, 'no retry after success');
  } finally {
    await rx.close();
  }
});

test('replay: one attempt numbered after the last, no new cycle; success → succeeded, failure → dead', async () => {
  const { sb, rx, d } = await failingDelivery();
  try {
    problem(await sb.api(`/api/v1/webhooks/deliveries/${d.id}/replay`, { method: 'POST' }), 409, 'delivery_pending');
    await advance(sb, 7200);
    const failed = await sb.api(`/api/v1/webhooks/deliveries/${d.id}/replay`, { method: 'POST' });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.status, 'dead');
    assert.equal(failed.body.attempts[5].number, 6);
    assert.equal(failed.body.attempts[5].trigger, 'replay');
    assert.equal(failed.body.nextAttemptAt, null, 'a failed replay starts no retry cycle');
    rx.behaviour = { kind: 'status', status: 200 };
    const replayed = await sb.api(`/api/v1/webhooks/deliveries/${d.id}/replay`, { method: 'POST' });
    assert.equal(replayed.body.status, 'succeeded');
    assert.equal(replayed.body.attempts.length, 7);
    assert.equal(
      new Set(rx.received.map((r) => r.headers['x-service-delivery-id'])).size,
      1,
      'replays keep the deliveryId',
    );
    // A succeeded delivery can be replayed too; if that fails it goes to dead.
    rx.behaviour = { kind: 'status', status: 410 };
    const again = await sb.api(`/api/v1/webhooks/deliveries/${d.id}/replay`, { method: 'POST' });
    assert.equal(again.body.status, 'dead');
  } finally {
    await rx.close();
  }
});

test('DLQ replay replays every dead delivery, or only those of a topic or endpoint', async () => {
  const sb = await createSandbox(engine.url);
  const a = await new Receiver().start();
  const b = await new Receiver().start();
  try {
    a.behaviour = b.behaviour = { kind: 'status', status: 500 };
    const ea = await registerEndpoint(sb, a.url, ['order.*']);
    await registerEndpoint(sb, b.url, ['order.*']);
    const order = await placeOrder(sb);
    await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
    await a.waitFor(2);
    await b.waitFor(2);
    await advance(sb, 7200);
    assert.equal((await sb.api('/api/v1/webhooks/dlq')).body.data.length, 4);
    a.behaviour = b.behaviour = { kind: 'status', status: 200 };

    const byTopic = await sb.api('/api/v1/webhooks/dlq/replay', {
      body: { topic: 'order.cancelled', endpointId: ea.id },
    });
    assert.equal(byTopic.status, 202);
    const first = await waitForReplayJob(sb, byTopic.body.id);
    assert.deepEqual([first.total, first.succeeded, first.failed], [1, 1, 0]);
    const rest = await waitForReplayJob(sb, (await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' })).body.id);
    assert.deepEqual([rest.total, rest.succeeded], [3, 3]);
    assert.deepEqual((await sb.api('/api/v1/webhooks/dlq')).body.data, []);
    problem(await sb.api('/api/v1/webhooks/dlq/replay', { body: { topic: 'nope.nope' } }), 422, 'unknown_topic');
  } finally {
    await a.close();
    await b.close();
  }
});

test('the real-time scheduler retries on its own once the attempt falls due', async () => {
  const { sb, rx, d } = await failingDelivery();
  try {
    // Move 27 s of the 30 s wait with the clock (nothing is due yet); the rest passes in real time.
    await advance(sb, 27);
    assert.equal(rx.received.length, 1);
    await rx.waitFor(2, 8000);
    const after = await waitForDelivery(sb, d.id, (x) => x.attemptCount === 2);
    assert.equal(after.attempts[1].trigger, 'retry');
  } finally {
    await rx.close();
  }
});
