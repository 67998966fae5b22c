// What a receiver's answer does to the schedule (SPEC §5.3): 410 Gone disables the endpoint,
// Retry-After on 429/502/503/504 moves the next attempt (seconds or an HTTP date, at most 1 h).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();

const seconds = (from: string | number, to: string) =>
  (Date.parse(to) - (typeof from === 'number' ? from : Date.parse(from))) / 1000;
const endOf = (a: any) => Date.parse(a.startedAt) + a.durationMs;

/** A sandbox, a receiver answering as told, an endpoint on it, one order's delivery after its first attempt. */
async function firstAttemptAnswered(answer: { status: number; headers?: Record<string, string> }) {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  rx.behaviour = { kind: 'status', ...answer };
  const endpoint = await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  await rx.waitFor(1);
  const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const d = await waitForDelivery(sb, id, (x) => x.attemptCount === 1);
  return { sb, rx, endpoint, d };
}

async function deliveriesOf(sb: TestSandbox): Promise<any[]> {
  return (await sb.api('/api/v1/webhooks/deliveries')).body.data;
}

test('410 Gone disables the endpoint (reason and time shown); its pending deliveries stop and say why; enabling resumes them', async () => {
  const { sb, rx, endpoint, d } = await firstAttemptAnswered({ status: 410 });
  try {
    const off = (await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body;
    assert.equal(off.enabled, false);
    assert.equal(off.disabled.reason, 'gone');
    assert.equal(off.disabled.deliveryId, d.id);
    assert.match(off.disabled.message, /410 Gone/);
    assert.ok(
      Math.abs(seconds(endOf(d.attempts[0]), off.disabled.at)) < 1,
      'disabled when the attempt ended (sandbox clock)',
    );
    assert.equal(d.attempts[0].disabledEndpoint, true);
    assert.equal(d.status, 'pending');
    assert.equal(d.paused.reason, 'endpoint_disabled');
    assert.match(d.paused.message, /410 Gone/);

    rx.behaviour = { kind: 'status', status: 200 };
    await placeOrder(sb);
    await advance(sb, 7200);
    assert.equal(rx.received.length, 1, 'nothing more is sent to a receiver that is gone, even across two hours');
    const waiting = await deliveriesOf(sb);
    assert.equal(waiting.length, 2);
    assert.ok(
      waiting.every((x) => x.status === 'pending' && x.paused?.reason === 'endpoint_disabled'),
      JSON.stringify(waiting),
    );
    problem(await sb.api(`/api/v1/webhooks/deliveries/${d.id}/retry`, { body: {} }), 409, 'endpoint_disabled');

    const on = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { enabled: true } });
    assert.equal(on.body.enabled, true);
    assert.equal(on.body.disabled, null);
    await rx.waitFor(3);
    for (const x of waiting) await waitForDelivery(sb, x.id, (y) => y.status === 'succeeded');
    assert.ok((await deliveriesOf(sb)).every((x) => x.paused === null));
  } finally {
    await rx.close();
  }
});

test('disabled by a user: the reason says so; a 410 to a bare test URL ends that delivery', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    const endpoint = await registerEndpoint(sb, `${rx.url}/registered`, ['order.placed']);
    const off = (
      await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { enabled: false } })
    ).body;
    assert.equal(off.disabled.reason, 'user');
    assert.equal(off.disabled.deliveryId, null);
    rx.behaviour = { kind: 'status', status: 410 };
    const sent = (await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: rx.url } })).body;
    const d = await waitForDelivery(sb, sent.deliveryId, (x) => x.status !== 'pending');
    assert.equal(d.status, 'dead', 'no endpoint to disable: the receiver said it is gone, so the delivery ends');
    assert.equal(d.nextAttemptAt, null);
    assert.equal(d.attempts[0].disabledEndpoint, false);
  } finally {
    await rx.close();
  }
});

test('429 with Retry-After: 600 puts the next attempt 600 sandbox seconds after the answer, not 30; the attempt says why', async () => {
  const { sb, rx, d } = await firstAttemptAnswered({ status: 429, headers: { 'retry-after': '600' } });
  try {
    const attempt = d.attempts[0];
    assert.deepEqual(attempt.retryAfter, { value: '600', delaySeconds: 600, capped: false, applied: true });
    assert.ok(seconds(endOf(attempt), d.nextAttemptAt) >= 600, `next attempt ${d.nextAttemptAt}`);
    assert.ok(seconds(endOf(attempt), d.nextAttemptAt) < 601);
    await advance(sb, 590);
    assert.equal(rx.received.length, 1, 'not at 30 s, nor before 600 s');
    await advance(sb, 15);
    await rx.waitFor(2);
    const second = (await waitForDelivery(sb, d.id, (x) => x.attemptCount === 2)).attempts[1];
    assert.ok(seconds(attempt.startedAt, second.startedAt) >= 600, 'no sooner than 600 sandbox seconds later');
  } finally {
    await rx.close();
  }
});

test('an HTTP-date Retry-After on 503 counts from the real clock; past an hour it is capped; shorter than the schedule, the schedule wins', async () => {
  const at = new Date(Date.now() + 300_000).toUTCString();
  const dated = await firstAttemptAnswered({ status: 503, headers: { 'retry-after': at } });
  try {
    const a = dated.d.attempts[0];
    assert.equal(a.retryAfter.value, at);
    assert.ok(a.retryAfter.delaySeconds >= 298 && a.retryAfter.delaySeconds <= 301, `${a.retryAfter.delaySeconds}`);
    assert.ok(Math.abs(seconds(endOf(a), dated.d.nextAttemptAt) - a.retryAfter.delaySeconds) < 1);
  } finally {
    await dated.rx.close();
  }
  const long = await firstAttemptAnswered({ status: 502, headers: { 'retry-after': '7200' } });
  try {
    const a = long.d.attempts[0];
    assert.deepEqual(a.retryAfter, { value: '7200', delaySeconds: 7200, capped: true, applied: true });
    assert.ok(Math.abs(seconds(endOf(a), long.d.nextAttemptAt) - 3600) < 1, 'at most 1 h');
  } finally {
    await long.rx.close();
  }
  const short = await firstAttemptAnswered({ status: 504, headers: { 'retry-after': '5' } });
  try {
    const a = short.d.attempts[0];
    assert.equal(a.retryAfter.applied, false);
    assert.ok(Math.abs(seconds(endOf(a), short.d.nextAttemptAt) - 30) < 1, 'the schedule is later than what it asked');
  } finally {
    await short.rx.close();
  }
});

test('Retry-After is read only on 429, 502, 503 and 504; junk in it is ignored', async () => {
  for (const answer of [
    { status: 500, headers: { 'retry-after': '600' } },
    { status: 429, headers: { 'retry-after': 'soon' } },
  ]) {
    const { rx, d } = await firstAttemptAnswered(answer);
    try {
      assert.equal(d.attempts[0].retryAfter, null, JSON.stringify(answer));
      assert.ok(Math.abs(seconds(endOf(d.attempts[0]), d.nextAttemptAt) - 30) < 1);
    } finally {
      await rx.close();
    }
  }
  const { sb, rx, d } = await firstAttemptAnswered({ status: 429, headers: { 'retry-after': '120' } });
  try {
    // The fifth attempt is the last: a Retry-After on it changes nothing, and the delivery is dead.
    await advance(sb, 7200);
    const dead = await delivery(sb, d.id);
    assert.equal(dead.status, 'dead');
    assert.equal(dead.attempts.length, 5);
    assert.equal(dead.attempts[4].retryAfter.applied, false);
  } finally {
    await rx.close();
  }
});
