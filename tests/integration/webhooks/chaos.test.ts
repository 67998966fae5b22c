// Chaos per endpoint: seeded duplicates and holds, stored with each delivery and marked on
// each attempt, so a receiver's view of a run is reproducible and explained in the log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { drawChaos } from '../../../src/webhooks/chaos.ts';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const orders = 8;
const seenIds = (from: number) => receiver.received.slice(from).map((r) => String(r.headers['x-service-delivery-id']));

/** Places `n` orders one after another; returns their deliveries to the endpoint, in creation order. */
async function deliveriesOf(sb: TestSandbox, endpointId: string, n: number): Promise<string[]> {
  for (let i = 0; i < n; i++) await placeOrder(sb);
  const res = await sb.api(`/api/v1/webhooks/deliveries?endpointId=${endpointId}&limit=100`);
  return res.body.data.map((d: any) => d.id).reverse();
}

async function duplicatePattern(seed: number): Promise<{ pattern: boolean[]; log: any[]; received: string[] }> {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.placed'], { chaos: { duplicateRate: 0.5, seed } });
  assert.deepEqual(endpoint.chaos, { duplicateRate: 0.5, reorderWindowMs: 0, delayMs: 0, seed });
  const from = receiver.received.length;
  const ids = await deliveriesOf(sb, endpoint.id, orders);
  const log = await Promise.all(
    ids.map((id) => waitForDelivery(sb, id, (d) => d.status === 'succeeded' && d.attempts.length >= 1)),
  );
  // A duplicate follows its first attempt at once; give the last one a moment to be recorded.
  const settled = await Promise.all(
    log.map((d) =>
      waitForDelivery(
        sb,
        d.id,
        (x) => x.attempts.length === (x.attempts.some((a: any) => a.trigger === 'duplicate') ? 2 : 1),
      ),
    ),
  );
  const pattern = settled.map((d) => d.attempts.length === 2);
  const received = seenIds(from).filter((id) => ids.includes(id));
  return { pattern, log: settled, received };
}

test('with a fixed seed the receiver sees the same duplicates every time, each marked in the log', async () => {
  const first = await duplicatePattern(42);
  const again = await duplicatePattern(42);
  assert.deepEqual(again.pattern, first.pattern, 'the same seed, the same faults');
  const expected = Array.from(
    { length: orders },
    (_, i) => drawChaos({ duplicateRate: 0.5, reorderWindowMs: 0, delayMs: 0, seed: 42 }, i + 1).duplicate,
  );
  assert.deepEqual(first.pattern, expected);
  assert.ok(expected.includes(true) && expected.includes(false), 'seed 42 duplicates some of the eight and not others');
  for (const d of first.log) {
    const count = first.received.filter((id) => id === d.id).length;
    assert.equal(count, d.attempts.length, `the receiver saw ${d.id} as often as the log says`);
    if (d.attempts.length === 2) {
      assert.equal(d.attempts[1].trigger, 'duplicate');
      assert.deepEqual(d.attempts[1].chaos, { duplicate: true, heldMs: 0, delayMs: 0, reorderMs: 0 });
      assert.equal(d.attempts[0].chaos, null);
      assert.equal(d.status, 'succeeded');
      assert.equal(d.attemptCount, 2);
    }
  }
  const other = await duplicatePattern(7);
  assert.notDeepEqual(other.pattern, first.pattern, 'another seed, other faults');
});

test('a reorder window and a delay hold each first attempt back; the receiver sees them in the order of their holds', async () => {
  const sb = await createSandbox(engine.url);
  const chaos = { reorderWindowMs: 3_600_000, delayMs: 60_000, seed: 3 };
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.placed'], { chaos });
  const from = receiver.received.length;
  const ids = await deliveriesOf(sb, endpoint.id, 5);
  const held = await Promise.all(
    ids.map((id) =>
      waitForDelivery(
        sb,
        id,
        (d) => d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) > Date.parse(d.createdAt) + 30_000,
      ),
    ),
  );
  assert.equal(seenIds(from).length, 0, 'nothing arrives before its hold');
  // The clock advance runs due work in due-time order, one batch per second of sandbox time.
  const dueAt = held.map((d) => Date.parse(d.nextAttemptAt));
  const sorted = [...dueAt].sort((a, b) => a - b);
  assert.ok(
    sorted.every((t, i) => i === 0 || t - sorted[i - 1] > 1000),
    'seed 3 spreads the holds more than a second apart',
  );
  await advance(sb, 2 * 3600);
  await receiver.waitFor(from + 5);
  const expectedOrder = ids
    .map((id, i) => ({ id, due: dueAt[i] }))
    .sort((a, b) => a.due - b.due)
    .map((x) => x.id);
  assert.deepEqual(seenIds(from), expectedOrder);
  assert.notDeepEqual(expectedOrder, ids, 'out of creation order');
  for (const [i, id] of ids.entries()) {
    const d = await delivery(sb, id);
    const draw = drawChaos({ duplicateRate: 0, ...chaos }, i + 1);
    assert.deepEqual(d.attempts[0].chaos, {
      duplicate: false,
      heldMs: 60_000 + draw.reorderMs,
      delayMs: 60_000,
      reorderMs: draw.reorderMs,
    });
    assert.equal(d.attempts[0].trigger, 'initial');
  }
});

test('chaos is off by default, turned off with null, and validated', async () => {
  const sb = await createSandbox(engine.url);
  const plain = await registerEndpoint(sb, receiver.url, ['order.placed']);
  assert.equal(plain.chaos, null);
  const on = await sb.api(`/api/v1/webhooks/endpoints/${plain.id}`, {
    method: 'PATCH',
    body: { chaos: { duplicateRate: 1 } },
  });
  assert.equal(on.body.chaos.duplicateRate, 1);
  assert.ok(Number.isInteger(on.body.chaos.seed), 'a random seed is picked and shown');
  const off = await sb.api(`/api/v1/webhooks/endpoints/${plain.id}`, { method: 'PATCH', body: { chaos: null } });
  assert.equal(off.body.chaos, null);
  const from = receiver.received.length;
  const [id] = await deliveriesOf(sb, plain.id, 1);
  await waitForDelivery(sb, id, (d) => d.status === 'succeeded');
  assert.equal(seenIds(from).filter((x) => x === id).length, 1);
  const bad = problem(
    await sb.api('/api/v1/webhooks/endpoints', {
      body: { url: receiver.url, topics: ['*'], chaos: { duplicateRate: 2, delayMs: -1 } },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(bad.errors.map((e: any) => e.path).sort(), ['/chaos/delayMs', '/chaos/duplicateRate']);
  problem(
    await sb.api('/api/v1/webhooks/endpoints', { body: { url: receiver.url, topics: ['*'], chaos: { latency: 5 } } }),
    400,
    'unknown_field',
  );
});
