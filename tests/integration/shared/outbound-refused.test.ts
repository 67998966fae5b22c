import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { loopbackNames, loopbackSpellings, testResolver } from '../../helpers/outbound.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { operatorKey } from '../../helpers/session.ts';
import { registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// A shared server (published at a non-loopback URL) with no --allow-receivers: nothing it sends may
// reach this machine. Every receiver here listens on loopback, so a refusal is the only way the
// tests pass, and a failure of the policy would show as a request arriving.
const resolver = testResolver({
  ...loopbackNames,
  // Not found when registered (so accepted then), loopback ever after: DNS rebinding.
  'rebinding.test': (call) => (call === 1 ? undefined : ['127.0.0.1']),
});
const engine = useEngine({
  publicUrl: 'http://sandbay.test:8080',
  adminKey: operatorKey,
  outboundLookup: resolver,
  attemptTimeoutMs: 2000,
});
const v4 = new Receiver();
const v6 = new Receiver();
before(async () => {
  await v4.start('127.0.0.1');
  await v6.start('::1');
});
after(async () => {
  await v4.close();
  await v6.close();
});

let tenant: Promise<TestSandbox> | undefined;
const sandbox = () => (tenant ??= createSandbox(engine.url, 'tenant', operatorKey));

const spellings = () =>
  loopbackSpellings({
    v4: v4.port,
    v6: v6.port,
    engine: engine.running.port,
    database: engine.databaseUrl ? Number(new URL(engine.databaseUrl).port) : undefined,
  });

test('every spelling of this machine is refused as a test webhook target: 422 blocked_by_policy, nothing sent', async () => {
  const sb = await sandbox();
  for (const { label, url } of spellings()) {
    const body = problem(
      await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: url } }),
      422,
      'blocked_by_policy',
    );
    assert.match(
      body.detail,
      /^Refused by the outbound policy: .*(loopback|reserved|own address|database's address).*--allow-receivers/,
      label,
    );
    assert.deepEqual(
      body.errors.map((e: any) => e.path),
      ['/endpoint'],
      label,
    );
  }
  assert.deepEqual((await sb.api('/api/v1/webhooks/deliveries')).body.data, [], 'no delivery was even stored');
  assert.equal(v4.received.length + v6.received.length, 0);
});

test('endpoints, their URL changes, checks and effects URLs are refused at registration too', async () => {
  const sb = await sandbox();
  const [first, ...rest] = spellings();
  problem(
    await sb.api('/api/v1/webhooks/endpoints', { body: { url: first.url, topics: ['*'] } }),
    422,
    'blocked_by_policy',
  );
  const later = await registerEndpoint(sb, 'http://not-yet-resolvable.test/hook');
  for (const { url } of rest.slice(0, 3)) {
    const refused = problem(
      await sb.api(`/api/v1/webhooks/endpoints/${later.id}`, { method: 'PATCH', body: { url } }),
      422,
      'blocked_by_policy',
    );
    assert.deepEqual(
      refused.errors.map((e: any) => e.path),
      ['/url'],
    );
  }
  assert.equal(
    (await sb.api(`/api/v1/webhooks/endpoints/${later.id}`)).body.url,
    'http://not-yet-resolvable.test/hook',
    'unchanged',
  );
  const check = problem(
    await sb.api('/api/v1/webhooks/checks', { body: { url: v4.url, secret: 'whsec_x' } }),
    422,
    'blocked_by_policy',
  );
  assert.deepEqual(
    check.errors.map((e: any) => e.path),
    ['/url'],
  );
  const effects = problem(
    await sb.api(`/api/v1/webhooks/endpoints/${later.id}/checks`, {
      body: { effectsUrl: `http://localhost:${v4.port}/count` },
    }),
    422,
    'blocked_by_policy',
  );
  assert.deepEqual(
    effects.errors.map((e: any) => e.path),
    ['/effectsUrl'],
  );
  assert.equal(v4.received.length + v6.received.length, 0);
});

test('private, link-local and metadata addresses are refused by their literal address, never connected to', async () => {
  const sb = await sandbox();
  for (const url of [
    'http://10.0.0.1/hook',
    'http://172.16.0.1/',
    'http://192.168.0.10/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
  ]) {
    const body = problem(
      await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: url } }),
      422,
      'blocked_by_policy',
    );
    assert.match(body.detail, /private|link-local|metadata/, url);
  }
});

test('a name that resolves to loopback only after it was registered: each attempt fails blocked_by_policy before connecting', async () => {
  const sb = await sandbox();
  const endpoint = await registerEndpoint(sb, `http://rebinding.test:${v4.port}/hook`, ['order.placed']);
  const order = await sb.api('/api/v1/orders', {
    body: {
      customerId: 'cus_0001',
      items: [{ variantId: 'var_0001', quantity: 1 }],
      shippingAddress: { city: 'İzmir', district: 'Konak' },
    },
  });
  assert.equal(order.status, 201);
  const [created] = (await sb.api(`/api/v1/webhooks/deliveries?endpointId=${endpoint.id}`)).body.data;
  const first = await waitForDelivery(sb, created.id, (d) => d.attempts.length === 1);
  assert.equal(first.attempts[0].responseStatus, null);
  assert.equal(
    first.attempts[0].error,
    `blocked_by_policy: rebinding.test resolves to 127.0.0.1, a loopback address; a shared Sandbay reaches public addresses only, plus the blocks its operator lists in --allow-receivers`,
  );
  assert.equal(
    first.status,
    'pending',
    'a refusal fails the attempt like any other: the name may point elsewhere by the next one',
  );

  // A retry goes through the same check at connect time.
  const retried = await sb.api(`/api/v1/webhooks/deliveries/${created.id}/retry`, { method: 'POST' });
  assert.equal(retried.status, 200);
  assert.match(retried.body.attempts[1].error, /^blocked_by_policy: rebinding\.test resolves to 127\.0\.0\.1/);
  assert.equal(v4.received.length, 0, 'the receiver never saw a request');
});

test("the server's own catchers stay reachable through the public URL; the rest of the server does not", async () => {
  const sb = await sandbox();
  const catcher = await sb.api('/api/v1/catchers/own', { method: 'PUT' });
  assert.equal(catcher.body.url, `http://sandbay.test:8080/catch/${sb.id}/own`);
  const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: catcher.body.url } });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  const done = await waitForDelivery(sb, sent.body.deliveryId, (d) => d.status === 'succeeded');
  assert.equal(done.attempts[0].responseStatus, 200);
  const caught = await sb.api('/api/v1/catchers/own/requests');
  assert.equal(caught.body.data.length, 1);
  assert.equal(caught.body.data[0].verification.verified, true);
  problem(
    await sb.api('/api/v1/webhooks/test', {
      body: { topic: 'order.placed', endpoint: 'http://sandbay.test:8080/api/v1/health' },
    }),
    422,
    'blocked_by_policy',
  );
});

test('a replay --to another URL is refused like an endpoint URL, dry run included: no job starts', async () => {
  const sb = await sandbox();
  for (const { label, url } of spellings().slice(0, 3))
    for (const dryRun of [true, false]) {
      const body = problem(
        await sb.api('/api/v1/webhooks/deliveries/replay', { body: { statuses: ['dead'], to: url, dryRun } }),
        422,
        'blocked_by_policy',
      );
      assert.deepEqual(
        body.errors.map((e: any) => e.path),
        ['/to'],
        label,
      );
    }
  assert.deepEqual((await sb.api('/api/v1/webhooks/dlq-replays')).body.data, []);
});
