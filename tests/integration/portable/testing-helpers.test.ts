import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { verifyWebhook } from '../../../src/receiver/index.ts';
import {
  deliveries,
  replayFixtures,
  startSandbox,
  waitForDelivery,
  type TestingSandbox,
} from '../../../src/testing/index.ts';
import { Receiver } from '../../helpers/receiver.ts';

const ownSecret = 'whsec_theReceiversOwnSecret0000000000';
const scratch = mkdtempSync(join(tmpdir(), 'sandbay-fixtures-'));
let sandbox: TestingSandbox;
const sink = new Receiver();
/** A receiver as a user writes one: it verifies with its own secret and counts what it accepted. */
const accepted: { topic: string; t: number }[] = [];
let receiver: Server;
let receiverUrl = '';

before(async () => {
  sandbox = await startSandbox();
  await sink.start();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = verifyWebhook({
          payload: Buffer.concat(chunks),
          header: String(req.headers['x-service-signature'] ?? ''),
          secret: ownSecret,
        });
        accepted.push({
          topic: event.topic,
          t: Number(/t=(\d+)/.exec(String(req.headers['x-service-signature']))![1]),
        });
        res.writeHead(200).end(`processed ${event.deliveryId}`);
      } catch (err) {
        res.writeHead(400).end((err as { reason?: string }).reason ?? 'bad');
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
after(async () => {
  await sandbox.close();
  await sink.close();
  receiver.close();
  rmSync(scratch, { recursive: true, force: true });
});

const api = async (path: string, body?: unknown) => {
  const res = await fetch(sandbox.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
  });
  return res.json() as Promise<any>;
};
const placeOrder = () =>
  api('/api/v1/orders', {
    customerId: 'cus_0001',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'İzmir', district: 'Konak' },
  });

test("replayFixtures re-signs recorded deliveries with the receiver's own secret and a fresh timestamp; the receiver verifies them", async () => {
  await api('/api/v1/webhooks/endpoints', { url: sink.url, topics: ['order.*'] });
  await placeOrder();
  await placeOrder();
  await sink.waitFor(2);
  const recorded: any = await (
    await fetch(`${sandbox.url}/api/v1/webhooks/deliveries/export?format=fixtures&topics=order.*`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    })
  ).json();
  const file = join(scratch, 'fixtures.json');
  writeFileSync(file, JSON.stringify(recorded));
  const before = Math.floor(Date.now() / 1000);
  const results = await replayFixtures(file, { url: receiverUrl, secret: ownSecret });
  assert.equal(results.length, 2);
  for (const [i, r] of results.entries()) {
    assert.equal(r.status, 200, r.body);
    assert.equal(r.ok, true);
    assert.equal(r.body, `processed ${recorded.fixtures[i].deliveryId}`);
    assert.equal(r.topic, 'order.placed');
    assert.ok(r.durationMs >= 0);
  }
  assert.ok(
    accepted.slice(-2).every((a) => a.t >= before && a.t <= Math.floor(Date.now() / 1000)),
    'signed now, not when recorded',
  );
  // The endpoint's own secret is not the receiver's: replayed with it, the receiver refuses each one.
  const wrong = await replayFixtures(file, { url: receiverUrl, secret: 'whsec_someoneElse' });
  assert.deepEqual(
    wrong.map((r) => [r.status, r.ok, r.body]),
    [
      [400, false, 'no_matching_signature'],
      [400, false, 'no_matching_signature'],
    ],
  );
});

test('replayFixtures signs Standard Webhooks too, and reports a receiver that cannot be reached', async () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const rx = await new Receiver().start();
  try {
    const fixture = {
      name: 'one',
      topic: 'order.placed',
      deliveryId: 'dlv_fixture',
      eventId: 'evt_fixture',
      body: '{"topic":"order.placed"}',
      headers: { 'content-type': 'application/json' },
      recorded: { url: null, status: null, at: null },
    };
    const file = {
      sandbayFixtures: 1,
      recordedAt: new Date().toISOString(),
      source: { sandboxId: 'sbx_x' },
      fixtures: [fixture],
    };
    const [result] = await replayFixtures(file, { url: rx.url, secret, scheme: 'standard-webhooks' });
    assert.equal(result.status, 200);
    const got = rx.received[0].headers;
    const expected = createHmac('sha256', Buffer.from('0123456789abcdef0123456789abcdef'))
      .update(`dlv_fixture.${got['webhook-timestamp']}.${fixture.body}`)
      .digest('base64');
    assert.equal(got['webhook-id'], 'dlv_fixture');
    assert.equal(got['webhook-signature'], `v1,${expected}`);
    const closed = rx.url;
    await rx.close();
    const [refused] = await replayFixtures(file, { url: closed, secret });
    assert.equal(refused.status, null);
    assert.equal(refused.ok, false);
    assert.match(refused.error ?? '', /ECONNREFUSED/);
  } finally {
    await rx.close();
  }
});

test('replayFixtures signs ed25519 with a whsk_ key (the receiver verifies v1a with the whpk_ key), several schemes at once, and refuses keys that cannot sign', async () => {
  const { newEd25519KeyPair } = await import('../../../src/receiver/ed25519-keys.ts');
  const { Webhook } = await import('standardwebhooks');
  const { signingKey, publicKey } = newEd25519KeyPair();
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const rx = await new Receiver().start();
  try {
    const fixture = {
      name: 'one',
      topic: 'order.placed',
      deliveryId: 'dlv_fixture',
      eventId: 'evt_fixture',
      body: '{"type":"order.placed","timestamp":"2026-01-01T00:00:00.000Z","data":{}}',
      headers: { 'content-type': 'application/json' },
      recorded: { url: null, status: null, at: null },
    };
    const file = {
      sandbayFixtures: 1,
      recordedAt: new Date().toISOString(),
      source: { sandboxId: 'sbx_x' },
      fixtures: [fixture],
    };
    // A whsk_ key alone signs ed25519 by default: what it is for.
    const [alone] = await replayFixtures(file, { url: rx.url, secret: signingKey });
    assert.equal(alone.status, 200);
    const headers = (i: number) =>
      Object.fromEntries(Object.entries(rx.received[i].headers).map(([k, v]) => [k, String(v)]));
    assert.match(headers(0)['webhook-signature'], /^v1a,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(
      verifyWebhook({ payload: rx.received[0].body, headers: headers(0), secret: publicKey }),
      JSON.parse(fixture.body),
    );
    // Both Standard Webhooks schemes at once: the official library verifies the v1 beside the v1a.
    await replayFixtures(file, {
      url: rx.url,
      secret: [secret, signingKey],
      scheme: ['standard-webhooks', 'standard-webhooks-ed25519'],
    });
    assert.equal(
      headers(1)
        ['webhook-signature'].split(' ')
        .map((s) => s.split(',')[0])
        .join(' '),
      'v1 v1a',
    );
    assert.ok(new Webhook(secret).verify(rx.received[1].body, headers(1)));
    assert.ok(
      verifyWebhook({
        payload: rx.received[1].body,
        headers: headers(1),
        secret: publicKey,
        scheme: 'standard-webhooks-ed25519',
      }),
    );
    // Refused before anything is sent.
    await assert.rejects(
      replayFixtures(file, { url: rx.url, secret, scheme: 'standard-webhooks-ed25519' }),
      /give a whsk_… key/,
    );
    await assert.rejects(
      replayFixtures(file, { url: rx.url, secret: signingKey, scheme: 'sandbay' }),
      /sandbay signs with a whsec_… secret/,
    );
    await assert.rejects(
      replayFixtures(file, { url: rx.url, secret: 'whsec_not*base64', scheme: 'standard-webhooks' }),
      /whsec_ followed by base64/,
    );
    assert.equal(rx.received.length, 2);
  } finally {
    await rx.close();
  }
});

test('waitForDelivery resolves on a delivery made after it was called, with its attempts', async () => {
  const since = new Date(Date.now() - 1000);
  const order = await placeOrder();
  const waiting = waitForDelivery(
    { topic: 'order.cancelled', responseStatus: 200, since },
    { url: sandbox.url, token: sandbox.token, timeout: 10_000 },
  );
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(
    (await deliveries({ topic: 'order.cancelled' }, { url: sandbox.url, token: sandbox.token })).length,
    0,
    'nothing to find yet',
  );
  await api(`/api/v1/orders/${order.id}/cancel`, {});
  const found = await waiting;
  assert.equal(found.topic, 'order.cancelled');
  assert.equal(found.attempts[0].responseStatus, 200);
  assert.equal((found.envelope.data as { orderId: string }).orderId, order.id);
  // Recorded before this call: only an explicit since (here: any time) lets it match.
  const same = await sandbox.waitForDelivery({ eventId: found.eventId, since: 0 });
  assert.equal(same.id, found.id);
});

test('waitForDelivery times out with a message naming the filter; deliveries() filters by topic pattern', async () => {
  await assert.rejects(
    sandbox.waitForDelivery({ topic: 'payment.captured', responseStatus: 200 }, { timeout: 300 }),
    /^Error: waitForDelivery: no delivery matching \{"topic":"payment.captured","responseStatus":200\} within 300 ms; none at all$/,
  );
  const orders = await sandbox.deliveries({ topic: 'order.*' });
  assert.ok(orders.length >= 4 && orders.every((d) => d.topic.startsWith('order.')));
  assert.deepEqual(await sandbox.deliveries({ topic: 'payment.*' }), []);
});

test("a receiver check's probes are no fixtures, and waitForDelivery never takes one for a delivery your code caused", async () => {
  await api('/api/v1/webhooks/endpoints', { url: sink.url, topics: ['order.*'] });
  const placing = new Date();
  const order = await placeOrder();
  await sandbox.waitForDelivery({ search: order.id, since: placing });
  const since = new Date();
  const report = await sandbox.checkReceiver({ url: receiverUrl, secret: ownSecret });
  assert.equal(report.failed, 0, JSON.stringify(report.cases.filter((c) => !c.ok)));
  const probes = (await api('/api/v1/webhooks/deliveries?limit=100&includeChecks=true')).data.filter(
    (d: any) => d.check !== null,
  );
  assert.ok(
    probes.some((d: any) => d.topic === 'order.placed' && d.lastStatus === 200),
    'the check sent order.placed probes the receiver accepted',
  );
  const recorded: any = await (
    await fetch(`${sandbox.url}/api/v1/webhooks/deliveries/export?format=fixtures&topics=order.*`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    })
  ).json();
  const probeIds = new Set(probes.map((d: any) => d.id));
  assert.ok(
    recorded.fixtures.length > 0 && recorded.fixtures.every((f: any) => !probeIds.has(f.deliveryId)),
    "fixtures hold the sandbox's own deliveries only",
  );
  await assert.rejects(
    sandbox.waitForDelivery({ topic: 'order.placed', responseStatus: 200, since }, { timeout: 300 }),
    /^Error: waitForDelivery: no delivery matching/,
  );
  assert.deepEqual(
    (await sandbox.deliveries({ since })).map((d) => d.id),
    [],
  );
  const asked = await sandbox.deliveries({ since, includeChecks: true });
  assert.ok(asked.length > 0 && asked.every((d) => probeIds.has(d.id)), 'includeChecks: the probes, when asked for');
  const probe = await sandbox.waitForDelivery({
    topic: 'order.placed',
    responseStatus: 200,
    since,
    includeChecks: true,
  });
  assert.ok(probeIds.has(probe.id));
});
