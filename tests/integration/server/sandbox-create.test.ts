import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';

const engine = useEngine();

test('POST /api/v1/sandboxes needs no token and returns the SPEC §3 shape with seed counts', async () => {
  const res = await call(engine.url, '/api/v1/sandboxes', { method: 'POST', body: { name: 'Checkout team' } });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.body).sort(), ['credentials', 'sandbox', 'webhookTestSecret']);
  const { sandbox, credentials, webhookTestSecret } = res.body;
  assert.match(sandbox.id, /^sbx_/);
  assert.equal(sandbox.name, 'Checkout team');
  assert.match(sandbox.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.equal(sandbox.counts.products, 100);
  assert.equal(sandbox.counts.customers, 50);
  assert.equal(sandbox.counts.orders, 200);
  assert.equal(sandbox.counts.vendors, 3);
  assert.deepEqual(Object.keys(credentials).sort(), [
    'accessToken',
    'clientId',
    'clientSecret',
    'expiresIn',
    'refreshToken',
    'scope',
    'tokenType',
  ]);
  assert.equal(credentials.tokenType, 'Bearer');
  assert.equal(credentials.expiresIn, 3600);
  for (const area of [
    'orders',
    'payments',
    'catalog',
    'customers',
    'b2b',
    'vendors',
    'payouts',
    'reports',
    'security',
    'webhooks',
    'sandbox',
  ]) {
    assert.ok(credentials.scope.split(' ').includes(`${area}:write`), `sandbox credentials carry ${area}:write`);
  }
  assert.match(webhookTestSecret, /^whsec_/);

  const me = await call(engine.url, '/api/v1/sandbox', { token: credentials.accessToken });
  assert.equal(me.status, 200);
  assert.deepEqual(me.body, sandbox);
});

test('a POST without a body (curl -X POST) is read as {}: a default name', async () => {
  const res = await fetch(`${engine.url}/api/v1/sandboxes`, { method: 'POST' });
  assert.equal(res.status, 201);
  const body = (await res.json()) as any;
  assert.match(body.sandbox.name, /^Sandbox /);
});

test('sandbox creation validates its body like every route', async () => {
  problem(await call(engine.url, '/api/v1/sandboxes', { body: { name: 'x', plan: 'pro' } }), 400, 'unknown_field');
  const long = problem(
    await call(engine.url, '/api/v1/sandboxes', { body: { name: 'x'.repeat(101) } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    long.errors.map((e: any) => e.path),
    ['/name'],
  );
  problem(await call(engine.url, '/api/v1/sandboxes', { body: { name: 5 } }), 422, 'validation_failed');
});

test('seed data is deterministic: the same ids and values in every sandbox', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  for (const path of ['/api/v1/orders/ord_0001', '/api/v1/orders/ord_0200']) {
    const [x, y] = [await a.api(path), await b.api(path)];
    assert.equal(x.status, 200);
    assert.deepEqual(x.body, y.body);
  }
  const order = (await a.api('/api/v1/orders/ord_0001')).body;
  assert.equal(order.customerId, 'cus_0001');
  assert.equal(order.currency, 'TRY');
  assert.equal(order.total, 3426.8);
  assert.deepEqual(order.shippingAddress, { city: 'Trabzon', district: 'Akçaabat' });
  const [pa, pb] = [await a.api('/api/v1/orders?limit=100'), await b.api('/api/v1/orders?limit=100')];
  assert.deepEqual(pa.body.data, pb.body.data);
  const customer = (tenantId: string) =>
    engine.running.services.db.query(
      `select to_jsonb(c) - 'tenant_id' as row from customers c where tenant_id = $1 and id = 'cus_0001'`,
      [tenantId],
    );
  const [ca, cb] = [await customer(a.id), await customer(b.id)];
  assert.equal(ca[0].row.name, 'Ayşe Yılmaz');
  assert.deepEqual(ca, cb);
  assert.notEqual(a.id, b.id);
  assert.notEqual(a.token, b.token);
});

test('GET /api/v1/sandbox answers the caller only; without a token it is 401', async () => {
  const sb = await createSandbox(engine.url, 'mine');
  const res = await sb.api('/api/v1/sandbox');
  assert.equal(res.body.id, sb.id);
  assert.equal(res.body.name, 'mine');
  problem(await call(engine.url, '/api/v1/sandbox'), 401, 'missing_token');
});
