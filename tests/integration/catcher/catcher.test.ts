import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// A short attempt timeout lets the `timeout` mode be shown without waiting 10 s.
const engine = useEngine({ attemptTimeoutMs: 700 });
let names = 0;
const uniqueName = () => `c${process.pid}-${++names}`;

async function catcher(sb: TestSandbox, body: Record<string, unknown> = {}, name = uniqueName()) {
  const res = await sb.api(`/api/v1/catchers/${name}`, { method: 'PUT', body });
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  return res.body;
}

async function sendTest(sb: TestSandbox, endpoint: string) {
  const res = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return waitForDelivery(sb, res.body.deliveryId, (d) => d.attempts.length > 0);
}

async function requests(sb: TestSandbox, name: string) {
  const res = await sb.api(`/api/v1/catchers/${name}/requests`);
  assert.equal(res.status, 200);
  return res.body.data;
}

test("a catcher is created by PUT, reconfigured by PUT, and its name and URL are its sandbox's own", async () => {
  const sb = await createSandbox(engine.url);
  const other = await createSandbox(engine.url);
  const name = uniqueName();
  const created = await sb.api(`/api/v1/catchers/${name}`, { method: 'PUT' });
  assert.equal(created.status, 201);
  assert.equal(created.body.url, `${engine.url}/catch/${sb.id}/${name}`);
  assert.deepEqual([created.body.mode, created.body.status, created.body.delayMs], ['status', 200, 0]);
  const changed = await sb.api(`/api/v1/catchers/${name}`, { method: 'PUT', body: { status: 503 } });
  assert.equal(changed.status, 200);
  assert.equal(changed.body.status, 503);
  problem(await other.api(`/api/v1/catchers/${name}`), 404, 'not_found');
  const theirs = await other.api(`/api/v1/catchers/${name}`, { method: 'PUT', body: {} });
  assert.equal(theirs.status, 201, 'another sandbox has its own catcher of that name');
  assert.equal(theirs.body.url, `${engine.url}/catch/${other.id}/${name}`);
  assert.equal(theirs.body.status, 200);
  assert.deepEqual(
    (await sb.api('/api/v1/catchers')).body.data.map((c: any) => [c.name, c.status]),
    [[name, 503]],
  );
  assert.deepEqual(
    (await other.api('/api/v1/catchers')).body.data.map((c: any) => [c.name, c.status]),
    [[name, 200]],
  );
});

test('bad catcher input gets problem details', async () => {
  const sb = await createSandbox(engine.url);
  problem(await sb.api('/api/v1/catchers/Bad_Name', { method: 'PUT', body: {} }), 422, 'validation_failed');
  const status = problem(
    await sb.api(`/api/v1/catchers/${uniqueName()}`, { method: 'PUT', body: { status: 42 } }),
    422,
    'validation_failed',
  );
  assert.equal(status.errors[0].path, '/status');
  problem(
    await sb.api(`/api/v1/catchers/${uniqueName()}`, { method: 'PUT', body: { delayMs: 60_000 } }),
    422,
    'validation_failed',
  );
  problem(
    await sb.api(`/api/v1/catchers/${uniqueName()}`, { method: 'PUT', body: { colour: 'red' } }),
    400,
    'unknown_field',
  );
  problem(await call(engine.url, `/catch/${sb.id}/nobody-has-this`, { body: {} }), 404, 'not_found');
  problem(await call(engine.url, '/catch/nobody-has-this', { body: {} }), 404, 'not_found');
});

test('a delivery to a catcher is recorded and verified with the endpoint secret', async () => {
  const sb = await createSandbox(engine.url);
  const c = await catcher(sb);
  const endpoint = await registerEndpoint(sb, c.url, ['order.*']);
  const d = await sendTest(sb, endpoint.id);
  assert.equal(d.status, 'succeeded');
  const [got] = await requests(sb, c.name);
  assert.equal(got.body, d.rawBody);
  assert.equal(got.headers['x-service-delivery-id'], d.id);
  assert.deepEqual(got.verification, {
    verified: true,
    reason: 'ok',
    deliveryId: d.id,
    secretSource: 'endpoint',
    signature: ['sandbay'],
  });
  assert.equal(got.responseStatus, 200);
});

test('a test webhook to a bare catcher URL is verified with the webhookTestSecret', async () => {
  const sb = await createSandbox(engine.url);
  const c = await catcher(sb);
  await sendTest(sb, c.url);
  const [got] = await requests(sb, c.name);
  assert.deepEqual([got.verification.verified, got.verification.secretSource], [true, 'test_secret']);
});

test('a catcher verifies every scheme its endpoint signs with; a forged v1a is caught even beside a good v1', async () => {
  const sb = await createSandbox(engine.url);
  const c = await catcher(sb);
  const all = ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519'];
  const endpoint = await registerEndpoint(sb, c.url, ['order.*'], { signature: all });
  const d = await sendTest(sb, endpoint.id);
  const path = new URL(c.url).pathname;
  const [good] = await requests(sb, c.name);
  const sw = { 'webhook-id': d.id, 'webhook-timestamp': good.headers['webhook-timestamp'] };
  const sandbay = { 'x-service-signature': good.headers['x-service-signature'] };
  assert.deepEqual(good.verification, {
    verified: true,
    reason: 'ok',
    deliveryId: d.id,
    secretSource: 'endpoint',
    signature: all,
  });
  const v1 = good.headers['webhook-signature'].split(' ')[0];
  await call(engine.url, path, {
    body: d.rawBody,
    headers: { ...sandbay, ...sw, 'webhook-signature': `${v1} v1a,${Buffer.alloc(64).toString('base64')}` },
  });
  await call(engine.url, path, { body: d.rawBody, headers: { ...sandbay, ...sw } });
  const [missing, forged] = await requests(sb, c.name);
  assert.deepEqual([forged.verification.verified, forged.verification.reason], [false, 'no_matching_signature']);
  assert.deepEqual(
    [missing.verification.verified, missing.verification.reason],
    [false, 'no_header'],
    'no webhook-signature',
  );
});

test('requests Sandbay did not sign are recorded as unverified, with the reason', async () => {
  const sb = await createSandbox(engine.url);
  const c = await catcher(sb);
  const endpoint = await registerEndpoint(sb, c.url);
  const d = await sendTest(sb, endpoint.id);
  const forged = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
  await call(engine.url, new URL(c.url).pathname, {
    body: d.rawBody,
    headers: { 'x-service-delivery-id': d.id, 'x-service-signature': forged },
  });
  await call(engine.url, new URL(c.url).pathname, { body: '{}', headers: { 'x-service-delivery-id': 'dlv_unknown' } });
  await call(engine.url, new URL(c.url).pathname, {
    body: d.rawBody,
    headers: { 'x-service-delivery-id': d.id, 'x-service-signature': 'nonsense' },
  });
  const [malformed, unknown, wrong] = await requests(sb, c.name);
  assert.equal(wrong.verification.reason, 'no_matching_signature');
  assert.equal(unknown.verification.reason, 'unknown_delivery');
  assert.equal(malformed.verification.reason, 'malformed_header');
});

test('failing modes fail the attempt: 5xx, redirect, timeout, and a delay is applied', async () => {
  const sb = await createSandbox(engine.url);
  const c = await catcher(sb, { status: 500 });
  const endpoint = await registerEndpoint(sb, c.url);
  let d = await sendTest(sb, endpoint.id);
  assert.deepEqual([d.status, d.attempts[0].responseStatus], ['pending', 500]);

  await catcher(sb, { mode: 'redirect' }, c.name);
  d = await sendTest(sb, endpoint.id);
  assert.equal(d.attempts[0].responseStatus, 302);
  assert.match(d.attempts[0].error, /redirect not followed/);

  await catcher(sb, { mode: 'timeout' }, c.name);
  d = await sendTest(sb, endpoint.id);
  assert.match(d.attempts[0].error, /timeout/);

  await catcher(sb, { mode: 'status', status: 204, delayMs: 300 }, c.name);
  d = await sendTest(sb, endpoint.id);
  assert.equal(d.status, 'succeeded');
  assert.ok(d.attempts[0].durationMs >= 300, `the catcher waited ${d.attempts[0].durationMs} ms`);
  const log = await requests(sb, c.name);
  assert.deepEqual(
    log.map((r: any) => r.responseStatus),
    [204, null, 302, 500],
  );
});

test('a reset keeps the catcher and clears its log; delete removes it and its log', async () => {
  const sb = await createSandbox(engine.url);
  const c = await catcher(sb);
  await sendTest(sb, c.url);
  assert.equal((await requests(sb, c.name)).length, 1);
  assert.equal((await sb.api('/api/v1/sandbox/reset', { method: 'POST' })).status, 200);
  assert.deepEqual(await requests(sb, c.name), []);
  await sendTest(sb, c.url);
  assert.equal((await sb.api(`/api/v1/catchers/${c.name}`, { method: 'DELETE' })).status, 204);
  problem(await call(engine.url, new URL(c.url).pathname, { body: {} }), 404, 'not_found');
  const again = await sb.api(`/api/v1/catchers/${c.name}`, { method: 'PUT' });
  assert.deepEqual(
    [again.status, again.body.requestCount],
    [201, 0],
    'a new catcher of that name starts with an empty log',
  );
  const all = await sb.api('/api/v1/sandbox/reset', { method: 'POST', body: { scope: 'all' } });
  assert.equal(all.status, 200);
  problem(
    await call(engine.url, `/api/v1/catchers/${c.name}`, { token: all.body.credentials.accessToken }),
    404,
    'not_found',
  );
});
