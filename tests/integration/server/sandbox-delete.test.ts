import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { tokenRequest } from '../../helpers/oauth.ts';
import { placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const engine = useEngine();

test('DELETE /api/v1/sandbox removes everything in it; its tokens and client stop working', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, 'http://127.0.0.1:9/hook');
  await placeOrder(sb);
  const res = await sb.api('/api/v1/sandbox', { method: 'DELETE' });
  assert.equal(res.status, 204);
  assert.equal(res.body, '');

  problem(await sb.api('/api/v1/sandbox'), 401, 'invalid_token');
  problem(await sb.api('/api/v1/orders/ord_0001'), 401, 'invalid_token');
  const token = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(token.status, 401);
  assert.equal(token.body.error, 'invalid_client');

  const { adminKey } = engine.running;
  problem(
    await call(engine.url, '/api/v1/sandbox', { token: adminKey, headers: { 'sandbay-sandbox': sb.id } }),
    404,
    'not_found',
  );
  const rows = await engine.running.services.db.query<{ n: number }>(
    `select (select count(*) from orders where tenant_id = $1)::int + (select count(*) from oauth_tokens where tenant_id = $1)::int
          + (select count(*) from webhook_endpoints where tenant_id = $1)::int + (select count(*) from events where tenant_id = $1)::int as n`,
    [sb.id],
  );
  assert.equal(rows[0].n, 0, 'no row of the sandbox is left');
});

test('deleting one sandbox leaves another untouched', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const order = await placeOrder(b);
  assert.equal((await a.api('/api/v1/sandbox', { method: 'DELETE' })).status, 204);
  assert.equal((await b.api(`/api/v1/orders/${order.id}`)).status, 200);
  assert.equal((await b.api('/api/v1/sandbox')).body.counts.orders, 201);
});

test("another tenant's objects are a 404, never a leak", async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const order = await placeOrder(a);
  const endpoint = await registerEndpoint(a, 'http://127.0.0.1:9/hook');
  problem(await b.api(`/api/v1/orders/${order.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' }), 404, 'not_found');
  problem(await b.api(`/api/v1/webhooks/endpoints/${endpoint.id}`), 404, 'not_found');
  assert.equal((await a.api(`/api/v1/orders/${order.id}`)).body.status, 'placed', 'the failed cancel changed nothing');
});
