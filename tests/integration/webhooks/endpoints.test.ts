import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { independentlyVerify, Receiver } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('create shows the secret once; list and get mask it; patch and delete work', async () => {
  const sb = await createSandbox(engine.url);
  const created = await sb.api('/api/v1/webhooks/endpoints', {
    body: { url: receiver.url, topics: ['order.placed', 'payout.*'], description: 'local' },
  });
  assert.equal(created.status, 201);
  const ep = created.body;
  assert.match(ep.id, /^whe_/);
  assert.match(ep.secret, /^whsec_[A-Za-z0-9]{32}$/);
  assert.deepEqual([ep.enabled, ep.allowInsecureTls, ep.description], [true, false, 'local']);
  const got = await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`);
  assert.notEqual(got.body.secret, ep.secret);
  assert.ok(
    got.body.secret.startsWith('whsec_') &&
      got.body.secret.endsWith(ep.secret.slice(-4)) &&
      got.body.secret.includes('•'),
  );
  const list = await sb.api('/api/v1/webhooks/endpoints');
  assert.deepEqual(
    list.body.data.map((e: any) => e.id),
    [ep.id],
  );
  assert.ok(!JSON.stringify(list.body).includes(ep.secret));

  const patched = await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`, {
    method: 'PATCH',
    body: { topics: ['*'], url: `${receiver.url}?v2`, description: null },
  });
  assert.equal(patched.status, 200);
  assert.deepEqual(
    [patched.body.topics, patched.body.url, patched.body.description],
    [['*'], `${receiver.url}?v2`, null],
  );
  const secrets = await sb.api(`/api/v1/webhooks/endpoints/${ep.id}/secrets`);
  assert.deepEqual(
    secrets.body.data.map((s: any) => [s.secret, s.expiresAt]),
    [[ep.secret, null]],
  );

  assert.equal((await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`, { method: 'DELETE' })).status, 204);
  problem(await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`), 404, 'not_found');
});

test('bad endpoint input is a clear problem and stores nothing', async () => {
  const sb = await createSandbox(engine.url);
  const cases: [unknown, number, string][] = [
    [{ url: 'ftp://example.com', topics: ['*'] }, 422, 'validation_failed'],
    [{ url: '/relative', topics: ['*'] }, 422, 'validation_failed'],
    [{ url: receiver.url, topics: [] }, 422, 'validation_failed'],
    [{ url: receiver.url, topics: ['order.shipped', '*'] }, 422, 'unknown_topic'],
    [{ url: receiver.url, topics: ['nope.*'] }, 422, 'unknown_topic'],
    [{ url: receiver.url, topics: ['*'], publicKey: 'mine' }, 400, 'unknown_field'],
    [{ url: receiver.url, topics: 'order.placed' }, 422, 'validation_failed'],
    ['{"url":', 400, 'malformed_json'],
  ];
  for (const [body, status, code] of cases) {
    const res = await sb.api('/api/v1/webhooks/endpoints', { body });
    const p = problem(res, status, code);
    if (
      code === 'unknown_topic' &&
      Array.isArray((body as any).topics) &&
      (body as any).topics[0] === 'order.shipped'
    ) {
      assert.deepEqual(p.errors, [{ path: '/topics/0', message: 'order.shipped is not a topic, *, or <category>.*' }]);
    }
  }
  assert.deepEqual((await sb.api('/api/v1/webhooks/endpoints')).body.data, []);
  const ep = await registerEndpoint(sb, receiver.url);
  problem(
    await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`, { method: 'PATCH', body: { topics: ['bogus'] } }),
    422,
    'unknown_topic',
  );
  assert.deepEqual((await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`)).body.topics, ['*']);
});

test('GET /webhooks/topics lists the 33 topics in 10 categories with a data schema each', async () => {
  const sb = await createSandbox(engine.url);
  const res = await sb.api('/api/v1/webhooks/topics');
  assert.equal(res.body.data.length, 33);
  assert.equal(new Set(res.body.data.map((t: any) => t.category)).size, 10);
  const placed = res.body.data.find((t: any) => t.topic === 'order.placed');
  assert.deepEqual(placed.dataSchema.required, ['orderId', 'total', 'currency', 'customerId']);
});

test('rotation: both secrets sign for 24 h of sandbox time, newest first; then only the new one', async () => {
  const sb = await createSandbox(engine.url);
  const ep = await registerEndpoint(sb, `${receiver.url}?rotate`, ['order.placed']);
  const rotated = await sb.api(`/api/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { method: 'POST' });
  assert.equal(rotated.status, 200);
  const fresh = rotated.body.secret;
  assert.notEqual(fresh, ep.secret);
  const live = (await sb.api(`/api/v1/webhooks/endpoints/${ep.id}/secrets`)).body.data;
  assert.deepEqual(
    live.map((s: any) => s.secret),
    [fresh, ep.secret],
  );
  assert.equal(live[0].expiresAt, null);
  const overlapHours =
    (Date.parse(live[1].expiresAt) - Date.parse((await sb.api('/api/v1/sandbox/clock')).body.now)) / 3600_000;
  assert.ok(Math.abs(overlapHours - 24) < 0.01);

  const n = receiver.received.length;
  await placeOrder(sb);
  const [during] = (await receiver.waitFor(n + 1)).slice(n);
  const header = during.headers['x-service-signature'] as string;
  const v1s = header.split(',').filter((p) => p.startsWith('v1='));
  assert.equal(v1s.length, 2);
  assert.ok(
    independentlyVerify(`${header.split(',')[0]},${v1s[0]}`, during.body, fresh),
    'the first v1 is the newest secret',
  );
  assert.ok(independentlyVerify(`${header.split(',')[0]},${v1s[1]}`, during.body, ep.secret));

  await advance(sb, 24 * 3600 + 1);
  assert.deepEqual(
    (await sb.api(`/api/v1/webhooks/endpoints/${ep.id}/secrets`)).body.data.map((s: any) => s.secret),
    [fresh],
  );
  await placeOrder(sb);
  const [later] = (await receiver.waitFor(n + 2)).slice(n + 1);
  assert.equal((later.headers['x-service-signature'] as string).split(',').length, 2, 't and one v1');
  assert.ok(independentlyVerify(later.headers['x-service-signature'] as string, later.body, fresh));
});

test('a disabled endpoint keeps its deliveries pending until it is enabled', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    const ep = await registerEndpoint(sb, rx.url, ['order.placed'], { enabled: false });
    await placeOrder(sb);
    const [d] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    await advance(sb, 3600);
    assert.equal(rx.received.length, 0);
    assert.equal((await delivery(sb, d.id)).status, 'pending');
    problem(await sb.api(`/api/v1/webhooks/deliveries/${d.id}/retry`, { method: 'POST' }), 409, 'endpoint_disabled');
    await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`, { method: 'PATCH', body: { enabled: true } });
    await rx.waitFor(1);
    await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
  } finally {
    await rx.close();
  }
});

test('deleting an endpoint makes its pending deliveries dead with endpoint_deleted', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    rx.behaviour = { kind: 'status', status: 500 };
    const ep = await registerEndpoint(sb, rx.url, ['order.placed']);
    await placeOrder(sb);
    const [d] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    await waitForDelivery(sb, d.id, (x) => x.attemptCount === 1);
    await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`, { method: 'DELETE' });
    const dead = await delivery(sb, d.id);
    assert.deepEqual([dead.status, dead.lastError, dead.nextAttemptAt], ['dead', 'endpoint_deleted', null]);
    await advance(sb, 7200);
    assert.equal(rx.received.length, 1, 'no attempt after the delete');
    problem(await sb.api(`/api/v1/webhooks/deliveries/${d.id}/replay`, { method: 'POST' }), 409, 'endpoint_deleted');
  } finally {
    await rx.close();
  }
});

test('attempts go to the URL the endpoint has at the time of the attempt', async () => {
  const sb = await createSandbox(engine.url);
  const first = await new Receiver().start();
  const second = await new Receiver().start();
  try {
    first.behaviour = { kind: 'status', status: 500 };
    const ep = await registerEndpoint(sb, first.url, ['order.placed']);
    await placeOrder(sb);
    const [d] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    await waitForDelivery(sb, d.id, (x) => x.attemptCount === 1);
    await sb.api(`/api/v1/webhooks/endpoints/${ep.id}`, { method: 'PATCH', body: { url: second.url } });
    await advance(sb, 31);
    const done = await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
    assert.deepEqual(
      done.attempts.map((a: any) => a.url),
      [first.url, second.url],
    );
  } finally {
    await first.close();
    await second.close();
  }
});

test('allowInsecureTls accepts a self-signed https receiver; without it the attempt fails', async () => {
  const dir = join(import.meta.dirname, '..', '..', 'fixtures', 'tls');
  const received: string[] = [];
  const server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      received.push(req.url ?? '');
      res.end('ok');
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/tls`;
  try {
    const sb = await createSandbox(engine.url);
    await registerEndpoint(sb, `${url}?strict`, ['order.placed']);
    await registerEndpoint(sb, `${url}?insecure`, ['order.placed'], { allowInsecureTls: true });
    await placeOrder(sb);
    const list = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    const results = await Promise.all(list.map((d: any) => waitForDelivery(sb, d.id, (x) => x.attemptCount === 1)));
    const byUrl = Object.fromEntries(results.map((d: any) => [d.url.split('?')[1], d]));
    assert.equal(byUrl.insecure.status, 'succeeded');
    assert.equal(byUrl.strict.status, 'pending');
    assert.match(byUrl.strict.attempts[0].error, /TLS certificate rejected .*allowInsecureTls/);
    assert.deepEqual(received, ['/tls?insecure']);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
