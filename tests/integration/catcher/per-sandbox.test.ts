// Catchers belong to their sandbox: one name in two sandboxes is two catchers, a delivery reaches
// only a catcher of its own sandbox, and the request logs live in the database, capped per catcher.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { keptPerCatcher } from '../../../src/webhooks/catcher/request-log.ts';
import { startSandbox } from '../../../src/server/start.ts';
import { call, createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();

async function putCatcher(sb: TestSandbox, name: string, body: Record<string, unknown> = {}) {
  const res = await sb.api(`/api/v1/catchers/${name}`, { method: 'PUT', body });
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  return res.body;
}

const caught = async (sb: TestSandbox, name: string) => (await sb.api(`/api/v1/catchers/${name}/requests`)).body.data;

test('two sandboxes with a catcher named demo each receive only their own deliveries', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const sent = new Map<TestSandbox, string>();
  for (const sb of [a, b]) {
    const demo = await putCatcher(sb, 'demo');
    assert.equal(demo.url, `${engine.url}/catch/${sb.id}/demo`);
    await registerEndpoint(sb, demo.url, ['order.*']);
    const order = await placeOrder(sb);
    const [delivery] = (await sb.api(`/api/v1/webhooks/deliveries?search=${order.id}`)).body.data;
    await waitForDelivery(sb, delivery.id, (d) => d.status === 'succeeded');
    sent.set(sb, delivery.id);
  }
  for (const sb of [a, b]) {
    const log = await caught(sb, 'demo');
    assert.deepEqual(
      log.map((r: any) => [r.verification.deliveryId, r.verification.verified]),
      [[sent.get(sb), true]],
    );
    assert.equal(JSON.parse(log[0].body).tenantId, sb.id);
  }
});

test("a delivery sent to another sandbox's catcher URL fails in every scheme, and that catcher records nothing", async () => {
  const [owner, stranger] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const theirs = await putCatcher(owner, 'demo');
  // Standard Webhooks' envelope names no sandbox: its webhook-id alone tells whose delivery it is.
  for (const signature of ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519']) {
    const endpoint = await registerEndpoint(stranger, theirs.url, ['order.*'], { signature });
    await placeOrder(stranger);
    const [summary] = (await stranger.api(`/api/v1/webhooks/deliveries?endpointId=${endpoint.id}`)).body.data;
    const d = await waitForDelivery(stranger, summary.id, (x) => x.attempts.length > 0);
    assert.deepEqual([d.status, d.attempts[0].responseStatus], ['pending', 404], signature);
    assert.match(d.attempts[0].responseBody, /another sandbox's catcher/);
    await stranger.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'DELETE' });
  }
  assert.deepEqual(await caught(owner, 'demo'), []);
  // A request that is no delivery of this install is still recorded, as unverified.
  await call(engine.url, new URL(theirs.url).pathname, {
    body: { tenantId: stranger.id },
    headers: { 'x-service-delivery-id': 'dlv_nope' },
  });
  assert.deepEqual(
    (await caught(owner, 'demo')).map((r: any) => r.verification.reason),
    ['unknown_delivery'],
  );
});

test(`a catcher keeps its newest ${keptPerCatcher} requests, the oldest dropped first`, async () => {
  const sb = await createSandbox(engine.url);
  const c = await putCatcher(sb, 'capped');
  const extra = 5;
  for (let i = 0; i < keptPerCatcher + extra; i++) {
    assert.equal((await call(engine.url, new URL(c.url).pathname, { body: { i } })).status, 200);
  }
  const log = await caught(sb, 'capped');
  assert.deepEqual(
    log.map((r: any) => JSON.parse(r.body).i),
    Array.from({ length: keptPerCatcher }, (_, k) => keptPerCatcher + extra - 1 - k),
  );
  assert.equal((await sb.api('/api/v1/catchers/capped')).body.requestCount, keptPerCatcher);
  const [{ n }] = await engine.running.services.db.query<{ n: number }>(
    'select count(*)::int as n from catcher_requests where tenant_id = $1',
    [sb.id],
  );
  assert.equal(n, keptPerCatcher, 'the dropped requests are gone from the database, not only from the page');
});

test('racing puts of one name create it once and never fail; racing deletes give 404, never 500', async () => {
  const sb = await createSandbox(engine.url);
  const puts = await Promise.all(
    Array.from({ length: 12 }, (_, i) => sb.api('/api/v1/catchers/race', { method: 'PUT', body: { delayMs: i } })),
  );
  assert.deepEqual(
    puts.map((r) => r.status).filter((s) => s === 201),
    [201],
  );
  assert.ok(
    puts.every((r) => r.status === 200 || r.status === 201),
    JSON.stringify(puts.map((r) => r.status)),
  );
  const mixed = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? sb.api('/api/v1/catchers/race', { method: 'DELETE' })
        : sb.api('/api/v1/catchers/race', { method: 'PUT', body: {} }),
    ),
  );
  for (const r of mixed)
    assert.ok([200, 201, 204, 404, 409].includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);
});

test('what a catcher received outlives the engine process that received it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-catcher-'));
  try {
    let first = await startSandbox({ dataDir, port: 0, logRequests: false });
    let url: string;
    let token: string;
    try {
      const sb = await createSandbox(first.url);
      token = sb.token;
      url = (await putCatcher(sb, 'kept')).url;
      await call(first.url, new URL(url).pathname, { body: { hello: 'engine one' } });
    } finally {
      await first.close();
    }
    first = await startSandbox({ dataDir, port: 0, logRequests: false });
    try {
      const res = await call(first.url, '/api/v1/catchers/kept/requests', { token });
      assert.deepEqual(
        res.body.data.map((r: any) => JSON.parse(r.body)),
        [{ hello: 'engine one' }],
      );
    } finally {
      await first.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
