import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { tokenRequest } from '../../helpers/oauth.ts';
import { advance, placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const engine = useEngine();

test('reset restores the seed, zeroes the clock and keeps endpoints and tokens', async () => {
  const sb = await createSandbox(engine.url);
  const seeded = (await sb.api('/api/v1/orders/ord_0001')).body;
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:9/hook', ['order.placed']);
  const extra = await placeOrder(sb);
  assert.equal((await sb.api('/api/v1/orders/ord_0001/cancel', { method: 'POST' })).status, 200);
  await advance(sb, 3600);
  assert.equal((await sb.api('/api/v1/sandbox/clock')).body.offsetSeconds, 3600);

  const res = await sb.api('/api/v1/sandbox/reset', { method: 'POST' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.durationMs, 'number');
  assert.equal(res.body.credentials, undefined, 'a plain reset keeps the credentials');
  assert.equal(res.body.counts.orders, 200);
  assert.equal(res.body.counts.products, 100);

  assert.deepEqual(
    (await sb.api('/api/v1/orders/ord_0001')).body,
    seeded,
    'the cancelled seed order is back as seeded',
  );
  problem(await sb.api(`/api/v1/orders/${extra.id}`), 404, 'not_found');
  assert.equal((await sb.api('/api/v1/sandbox/clock')).body.offsetSeconds, 0);
  assert.equal((await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).status, 200, 'endpoints survive');
  assert.equal((await sb.api('/api/v1/webhooks/deliveries')).body.data.length, 0, 'the delivery log is cleared');
  assert.equal((await sb.api('/api/v1/events')).body.data.length, 0);
  const refreshed = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: sb.refreshToken,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(refreshed.status, 200, 'the refresh token survives a plain reset');
});

test('reset {"scope":"all"} revokes every old token, drops endpoints and returns fresh credentials', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:9/hook');
  const res = await sb.api('/api/v1/sandbox/reset', { body: { scope: 'all' } });
  assert.equal(res.status, 200);
  const fresh = res.body.credentials;
  assert.ok(fresh, 'fresh credentials');
  assert.equal(fresh.clientId, sb.clientId);
  assert.notEqual(fresh.clientSecret, sb.clientSecret);
  assert.notEqual(fresh.accessToken, sb.token);

  problem(await sb.api('/api/v1/sandbox'), 401, 'invalid_token');
  const oldRefresh = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: sb.refreshToken,
    client_id: sb.clientId,
    client_secret: fresh.clientSecret,
  });
  assert.equal(oldRefresh.status, 400);
  assert.equal(oldRefresh.body.error, 'invalid_grant');
  const oldSecret = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(oldSecret.status, 401);

  const me = await call(engine.url, '/api/v1/sandbox', { token: fresh.accessToken });
  assert.equal(me.status, 200);
  assert.equal(me.body.id, sb.id);
  problem(
    await call(engine.url, `/api/v1/webhooks/endpoints/${endpoint.id}`, { token: fresh.accessToken }),
    404,
    'not_found',
  );
  const refreshed = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: fresh.refreshToken,
    client_id: sb.clientId,
    client_secret: fresh.clientSecret,
  });
  assert.equal(refreshed.status, 200);
});

test('fresh credentials from a reset are never stored in the clear, not even for Idempotency-Key', async () => {
  const sb = await createSandbox(engine.url);
  const res = await sb.api('/api/v1/sandbox/reset', {
    body: { scope: 'all' },
    headers: { 'idempotency-key': 'reset-1' },
  });
  const { accessToken, refreshToken } = res.body.credentials;
  const rows = await engine.running.services.db.query<{ dump: string }>(
    `select coalesce(string_agg(response, ' '), '') as dump from idempotency_keys where tenant_id = $1`,
    [sb.id],
  );
  assert.ok(!rows[0].dump.includes(accessToken) && !rows[0].dump.includes(refreshToken));
  const tokens = await engine.running.services.db.query<{ hash: string }>(
    'select hash from oauth_tokens where tenant_id = $1',
    [sb.id],
  );
  assert.ok(tokens.every((t) => /^[0-9a-f]{64}$/.test(t.hash) && t.hash !== accessToken));
});

test('a reset of one sandbox never touches another', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const order = await placeOrder(b);
  await advance(b, 120);
  await a.api('/api/v1/sandbox/reset', { body: { scope: 'all' } });
  assert.equal((await b.api(`/api/v1/orders/${order.id}`)).status, 200);
  assert.equal((await b.api('/api/v1/sandbox')).body.counts.orders, 201);
  assert.equal((await b.api('/api/v1/sandbox/clock')).body.offsetSeconds, 120);
  assert.equal((await b.api('/api/v1/events')).body.data.length, 1);
});

test('reset validates its body: an unknown scope is 422, an unknown field 400, and nothing changes', async () => {
  const sb = await createSandbox(engine.url);
  const order = await placeOrder(sb);
  const bad = problem(
    await sb.api('/api/v1/sandbox/reset', { body: { scope: 'everything' } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    bad.errors.map((e: any) => e.path),
    ['/scope'],
  );
  problem(await sb.api('/api/v1/sandbox/reset', { body: { scope: 'all', hard: true } }), 400, 'unknown_field');
  assert.equal((await sb.api(`/api/v1/orders/${order.id}`)).status, 200);
  assert.equal((await sb.api('/api/v1/sandbox')).status, 200);
});
