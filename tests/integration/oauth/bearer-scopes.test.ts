import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { mintToken } from '../../helpers/oauth.ts';

const engine = useEngine();
const newOrder = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
};

test('no token is 401 missing_token with a Bearer challenge', async () => {
  const res = await call(engine.url, '/api/v1/orders');
  problem(res, 401, 'missing_token');
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
  const basic = await call(engine.url, '/api/v1/orders', { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
  problem(basic, 401, 'missing_token');
});

test('a garbage token is 401 invalid_token with error="invalid_token"', async () => {
  for (const token of ['garbage', 'sat_0000000000000000000000000000000000000000', 'sbk_notTheAdminKey']) {
    const res = await call(engine.url, '/api/v1/orders', { token });
    problem(res, 401, 'invalid_token');
    assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  }
});

test('a token with only orders:read gets 403 insufficient_scope naming orders:write', async () => {
  const sb = await createSandbox(engine.url);
  const token = await mintToken(engine.url, sb, { scope: 'orders:read' });
  assert.equal((await call(engine.url, '/api/v1/orders/ord_0001', { token })).status, 200);
  const res = await call(engine.url, '/api/v1/orders', { token, body: newOrder });
  const body = problem(res, 403, 'insufficient_scope');
  assert.match(body.detail, /orders:write/);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="orders:write"');
  assert.equal((await sb.api('/api/v1/sandbox')).body.counts.orders, 200, 'nothing was created');
});

test(':write implies :read, and scopes of one area grant nothing in another', async () => {
  const sb = await createSandbox(engine.url);
  const writer = await mintToken(engine.url, sb, { scope: 'orders:write' });
  assert.equal((await call(engine.url, '/api/v1/orders/ord_0001', { token: writer })).status, 200);
  assert.equal((await call(engine.url, '/api/v1/orders?limit=1', { token: writer })).status, 200);
  assert.equal((await call(engine.url, '/api/v1/orders', { token: writer, body: newOrder })).status, 201);
  const res = await call(engine.url, '/api/v1/sandbox', { token: writer });
  problem(res, 403, 'insufficient_scope');
  assert.equal(res.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="sandbox:read"');
  problem(
    await call(engine.url, '/api/v1/orders/ord_0001', {
      token: await mintToken(engine.url, sb, { scope: 'payments:write' }),
    }),
    403,
    'insufficient_scope',
  );
});

test('the token is read from the Authorization header only, case-insensitively on "Bearer"', async () => {
  const sb = await createSandbox(engine.url);
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { headers: { authorization: `bearer ${sb.token}` } })).status,
    200,
  );
  problem(await call(engine.url, `/api/v1/sandbox?access_token=${sb.token}`), 401, 'missing_token');
  problem(
    await call(engine.url, '/api/v1/sandbox', { headers: { authorization: `Bearer ${sb.token} extra` } }),
    401,
    'missing_token',
  );
});
