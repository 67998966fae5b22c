import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// SPEC §3: each sandbox keeps its newest N deliveries (10,000 by default); older finished
// ones are pruned, with their attempts and the events left without deliveries.
const engine = useEngine({ maxDeliveriesPerSandbox: 5 });
const rx = new Receiver();
before(() => rx.start());
after(() => rx.close());

const ids = async (sb: TestSandbox, path: string): Promise<string[]> =>
  (await sb.api(`${path}?limit=100`)).body.data.map((x: any) => x.id);

/** Places an order and waits until its delivery has succeeded; returns the delivery id. */
async function deliveredOrder(sb: TestSandbox): Promise<string> {
  const order = await placeOrder(sb);
  const events = (await sb.api('/api/v1/events?limit=1&topic=order.placed')).body.data;
  assert.equal(events[0].data.orderId, order.id);
  const [d] = (await sb.api(`/api/v1/events/${events[0].id}`)).body.deliveries;
  await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
  return d.id;
}

test('only the newest N deliveries are kept; older finished ones go with their attempts and orphaned events', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, rx.url, ['order.placed']);
  const other = await createSandbox(engine.url);
  await registerEndpoint(other, rx.url, ['order.placed']);
  // A delivery that stays pending (its endpoint is disabled) is never pruned, however old.
  await registerEndpoint(sb, rx.url, ['product.created'], { enabled: false });
  const product = await sb.api('/api/v1/products', {
    body: { name: 'Eski', category: 'Test', variants: [{ sku: 'PRUNE-1', name: 'Tek', price: 10, stock: 1 }] },
  });
  assert.equal(product.status, 201);
  const [pending] = await ids(sb, '/api/v1/webhooks/deliveries');

  const old: string[] = [];
  for (let i = 0; i < 4; i++) {
    old.push(await deliveredOrder(sb));
    // order.cancelled has no subscriber: an event without deliveries.
    const [placed] = (await sb.api('/api/v1/events?limit=1&topic=order.placed')).body.data;
    assert.equal((await sb.api(`/api/v1/orders/${placed.data.orderId}/cancel`, { method: 'POST' })).status, 200);
  }
  const otherOld = [await deliveredOrder(other), await deliveredOrder(other)];
  const newest: string[] = []; // newest first, as listed
  for (let i = 0; i < 5; i++) {
    await placeOrder(sb);
    newest.unshift((await ids(sb, '/api/v1/webhooks/deliveries'))[0]);
  }

  const kept = [...newest, pending];
  for (const deadline = Date.now() + 5000; ; await new Promise((r) => setTimeout(r, 20))) {
    const now = await ids(sb, '/api/v1/webhooks/deliveries');
    if (now.length === kept.length) break;
    assert.ok(Date.now() < deadline, `never pruned: ${now.length} deliveries`);
  }
  assert.deepEqual(await ids(sb, '/api/v1/webhooks/deliveries'), kept, 'the newest five and the pending one');
  for (const id of old) assert.equal((await sb.api(`/api/v1/webhooks/deliveries/${id}`)).status, 404);

  const [{ count }] = await engine.running.services.db.query<{ count: number }>(
    'select count(*)::int as count from attempts where tenant_id = $1 and delivery_id = any($2)',
    [sb.id, old],
  );
  assert.equal(count, 0, "the pruned deliveries' attempts are gone");
  const events = (await sb.api('/api/v1/events?limit=100')).body.data;
  assert.deepEqual(
    events.map((e: any) => e.topic),
    [...Array(5).fill('order.placed'), 'product.created'],
    'old events without deliveries are gone',
  );
  assert.deepEqual(
    await ids(other, '/api/v1/webhooks/deliveries'),
    otherOld.reverse(),
    'another sandbox keeps its own',
  );
});
