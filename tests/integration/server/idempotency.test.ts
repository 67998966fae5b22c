import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { orderBody, orderCount } from '../../helpers/orders.ts';

const engine = useEngine();
const withKey = (key: string) => ({ 'idempotency-key': key });

test('same key and same body (keys in another order) replays the first response and creates one order', async () => {
  const sb = await createSandbox(engine.url);
  const first = await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('order-1') });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);

  const { shippingAddress, items, customerId } = orderBody();
  const reordered = JSON.stringify({
    shippingAddress: { district: shippingAddress.district, city: shippingAddress.city },
    items,
    customerId,
  });
  const second = await sb.api('/api/v1/orders', { body: reordered, headers: withKey('order-1') });
  assert.equal(second.status, 201);
  assert.equal(second.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(second.body, first.body);
  assert.equal(await orderCount(engine.running, sb.id), 201, 'one order only');
  assert.equal((await sb.api('/api/v1/events')).body.data.length, 1, 'one event only');
});

test('the same key with a different body is 409 idempotency_key_reused', async () => {
  const sb = await createSandbox(engine.url);
  await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('k') });
  const res = await sb.api('/api/v1/orders', { body: orderBody({ customerId: 'cus_0002' }), headers: withKey('k') });
  problem(res, 409, 'idempotency_key_reused');
  assert.equal(await orderCount(engine.running, sb.id), 201);
});

test('a 4xx is replayed too, even once the request would succeed', async () => {
  const sb = await createSandbox(engine.url);
  const order = (await sb.api('/api/v1/orders', { body: orderBody() })).body;
  await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  const first = await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST', headers: withKey('c') });
  problem(first, 409, 'order_cancelled');
  const replay = await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST', headers: withKey('c') });
  problem(replay, 409, 'order_cancelled');
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, first.body);

  const bad = orderBody({ customerId: 'cus_9999' });
  problem(await sb.api('/api/v1/orders', { body: bad, headers: withKey('v') }), 422, 'customer_not_found');
  const again = await sb.api('/api/v1/orders', { body: bad, headers: withKey('v') });
  problem(again, 422, 'customer_not_found');
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
});

test('keys are scoped per tenant, method and path', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const fromA = await a.api('/api/v1/orders', { body: orderBody(), headers: withKey('shared') });
  const fromB = await b.api('/api/v1/orders', { body: orderBody(), headers: withKey('shared') });
  assert.equal(fromB.status, 201);
  assert.equal(fromB.headers.get('idempotent-replayed'), null, 'another tenant runs its own request');
  assert.notEqual(fromB.body.id, fromA.body.id);
  const cancel = await a.api(`/api/v1/orders/${fromA.body.id}/cancel`, { body: {}, headers: withKey('shared') });
  assert.equal(cancel.status, 200, 'another path runs its own request');
  assert.equal(cancel.body.status, 'cancelled');
});

test("a reset clears the tenant's keys", async () => {
  const sb = await createSandbox(engine.url);
  const first = await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('r') });
  await sb.api('/api/v1/sandbox/reset', { method: 'POST' });
  const after = await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('r') });
  assert.equal(after.status, 201);
  assert.equal(after.headers.get('idempotent-replayed'), null);
  assert.notEqual(after.body.id, first.body.id);
});

test('two concurrent requests with one key: one 201, the other a 409 in-use or a replay; one order', async () => {
  const sb = await createSandbox(engine.url);
  const results = await Promise.all(
    [1, 2, 3].map(() => sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('race') })),
  );
  const created = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
  assert.equal(created.length, 1, JSON.stringify(results.map((r) => r.status)));
  for (const r of results) {
    if (r === created[0]) continue;
    if (r.status === 409) problem(r, 409, 'idempotency_key_in_use');
    else
      assert.deepEqual([r.status, r.headers.get('idempotent-replayed'), r.body.id], [201, 'true', created[0].body.id]);
  }
  assert.equal(await orderCount(engine.running, sb.id), 201);
});

test('an over-long key is 422; GETs and keyless POSTs ignore idempotency', async () => {
  const sb = await createSandbox(engine.url);
  const res = problem(
    await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('x'.repeat(256)) }),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    res.errors.map((e: any) => e.path),
    ['/headers/Idempotency-Key'],
  );
  const get = await sb.api('/api/v1/orders/ord_0001', { headers: withKey('g') });
  assert.equal(get.headers.get('idempotent-replayed'), null);
  await sb.api('/api/v1/orders', { body: orderBody() });
  await sb.api('/api/v1/orders', { body: orderBody() });
  assert.equal(await orderCount(engine.running, sb.id), 202);
  const created = await call(engine.url, '/api/v1/sandboxes', { method: 'POST', headers: withKey('s') });
  const again = await call(engine.url, '/api/v1/sandboxes', { method: 'POST', headers: withKey('s') });
  assert.notEqual(created.body.sandbox.id, again.body.sandbox.id, 'sandbox creation has no tenant to scope a key to');
});
