import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { placeOrder } from '../../helpers/webhooks.ts';

const engine = useEngine();
const admin = (path: string, init: { method?: string; body?: unknown; sandbox?: string } = {}) =>
  call(engine.url, path, {
    method: init.method,
    body: init.body,
    token: engine.running.adminKey,
    headers: init.sandbox ? { 'sandbay-sandbox': init.sandbox } : {},
  });

test('the admin key with Sandbay-Sandbox reaches any sandbox route with every scope', async () => {
  const sb = await createSandbox(engine.url);
  const me = await admin('/api/v1/sandbox', { sandbox: sb.id });
  assert.equal(me.status, 200);
  assert.equal(me.body.id, sb.id);
  const order = await admin('/api/v1/orders', {
    sandbox: sb.id,
    body: {
      customerId: 'cus_0002',
      items: [{ variantId: 'var_0001', quantity: 1 }],
      shippingAddress: { city: 'Ankara', district: 'Çankaya' },
    },
  });
  assert.equal(order.status, 201);
  assert.equal((await sb.api(`/api/v1/orders/${order.body.id}`)).status, 200, 'it acted on that sandbox');
  assert.equal((await admin('/api/v1/sandbox/reset', { sandbox: sb.id, method: 'POST' })).status, 200);
});

test('the admin key without a sandbox is 422 sandbox_required; an unknown sandbox (or the seed template) is 404', async () => {
  const missing = problem(await admin('/api/v1/sandbox'), 422, 'sandbox_required');
  assert.deepEqual(
    missing.errors.map((e: any) => e.path),
    ['/headers/Sandbay-Sandbox'],
  );
  problem(await admin('/api/v1/orders', { sandbox: 'sbx_nope' }), 404, 'not_found');
  problem(await admin('/api/v1/orders/ord_0001', { sandbox: '__seed__' }), 404, 'not_found');
  problem(await admin('/api/v1/sandbox/reset', { sandbox: '__seed__', method: 'POST' }), 404, 'not_found');
});

test('GET /api/v1/sandboxes is admin-only and lists sandboxes, newest first, with a cursor', async () => {
  const [a, b] = [await createSandbox(engine.url, 'first'), await createSandbox(engine.url, 'second')];
  const page = await admin('/api/v1/sandboxes?limit=100');
  assert.equal(page.status, 200);
  const ids = page.body.data.map((s: any) => s.id);
  assert.ok(ids.indexOf(b.id) < ids.indexOf(a.id) && ids.indexOf(b.id) >= 0);
  assert.ok(!ids.includes('__seed__'), 'the seed template is hidden');
  const one = await admin('/api/v1/sandboxes?limit=1');
  assert.equal(one.body.data.length, 1);
  const next = await admin(`/api/v1/sandboxes?limit=1&cursor=${encodeURIComponent(one.body.nextCursor)}`);
  assert.equal(next.body.data[0].id, ids[1]);

  problem(await a.api('/api/v1/sandboxes'), 403, 'admin_key_required');
  problem(await call(engine.url, '/api/v1/sandboxes'), 401, 'missing_token');
  problem(await call(engine.url, '/api/v1/sandboxes', { token: 'sbk_wrongwrongwrong' }), 403, 'admin_key_required');
});

test('a sandbox token naming another sandbox in Sandbay-Sandbox is 403 sandbox_mismatch naming both, never silently its own', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const order = await placeOrder(b);
  for (const [path, method] of [
    [`/api/v1/orders/${order.id}`, 'GET'],
    ['/api/v1/sandbox', 'GET'],
    ['/api/v1/sandbox/reset', 'POST'],
  ] as const) {
    const res = problem(
      await call(engine.url, path, { method, token: a.token, headers: { 'sandbay-sandbox': b.id } }),
      403,
      'sandbox_mismatch',
    );
    assert.match(res.detail, new RegExp(`belongs to sandbox ${a.id}, but the request names sandbox ${b.id}`));
  }
  problem(await call(engine.url, `/api/v1/events/stream?sandbox=${b.id}`, { token: a.token }), 403, 'sandbox_mismatch');
  problem(
    await call(engine.url, '/api/v1/sandbox', { token: a.token, headers: { 'sandbay-sandbox': 'sbx_nope' } }),
    403,
    'sandbox_mismatch',
  );
  assert.equal(
    (await call(engine.url, `/api/v1/orders/${order.id}`, { token: b.token, headers: { 'sandbay-sandbox': b.id } }))
      .status,
    200,
    'its own sandbox named is fine',
  );
  const me = await call(engine.url, '/api/v1/sandbox', { token: a.token });
  assert.equal(me.body.id, a.id);
  assert.equal((await call(engine.url, `/api/v1/orders/${order.id}`, { token: b.token })).body.id, order.id);
});
