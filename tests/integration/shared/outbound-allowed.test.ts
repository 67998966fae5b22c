import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { loopbackNames, loopbackSpellings, testResolver } from '../../helpers/outbound.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { operatorKey } from '../../helpers/session.ts';
import { waitForDelivery } from '../../helpers/webhooks.ts';

// The same spellings the shared server refuses (outbound-refused.test.ts) are delivered on a
// laptop, where loopback receivers are the point, and on a shared server whose operator lists
// loopback in --allow-receivers. All of them are loopback listeners of this test.
const laptop = useEngine({ outboundLookup: testResolver(loopbackNames), attemptTimeoutMs: 3000 });
const listed = useEngine({
  publicUrl: 'http://sandbay.test:8080',
  adminKey: operatorKey,
  outboundLookup: testResolver(loopbackNames),
  attemptTimeoutMs: 3000,
  allowReceivers: ['127.0.0.0/8', '::1/128', '0.0.0.0/32'],
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

async function deliversEverySpelling(engine: typeof laptop, adminKey?: string): Promise<void> {
  const sb = await createSandbox(engine.url, undefined, adminKey);
  const spellings = loopbackSpellings({
    v4: v4.port,
    v6: v6.port,
    engine: engine.running.port,
    database: engine.databaseUrl ? Number(new URL(engine.databaseUrl).port) : undefined,
  });
  for (const { label, url } of spellings) {
    const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: url } });
    assert.equal(sent.status, 202, `${label}: ${JSON.stringify(sent.body)}`);
    const done = await waitForDelivery(sb, sent.body.deliveryId, (d) => d.attempts.length === 1);
    const [attempt] = done.attempts;
    assert.doesNotMatch(String(attempt.error), /blocked_by_policy/, label);
    if (label === "the server's own port") assert.equal(typeof attempt.responseStatus, 'number', 'the engine answered');
    else if (label === 'the database port')
      assert.notEqual(attempt.error, null, 'reached PostgreSQL, which speaks no HTTP');
    else {
      assert.equal(attempt.responseStatus, 200, `${label}: ${attempt.error}`);
      const receiver = label === '[::1]' ? v6 : v4;
      assert.ok(
        receiver.received.some((r) => r.headers['x-service-delivery-id'] === sent.body.deliveryId),
        `${label} reached the receiver`,
      );
    }
  }
}

test('on a laptop every loopback spelling is delivered', async () => {
  await deliversEverySpelling(laptop);
});

test('on a shared server with loopback in --allow-receivers every spelling is delivered', async () => {
  await deliversEverySpelling(listed, operatorKey);
});

test('what is listed is all that is opened: other blocks stay refused', async () => {
  const sb = await createSandbox(listed.url, undefined, operatorKey);
  for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/', 'http://[fd00::1]/']) {
    const res = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: url } });
    assert.equal(res.status, 422, url);
    assert.equal(res.body.code, 'blocked_by_policy');
  }
});

test('https through the policy: the name stays for TLS, and the certificate is still checked', async () => {
  const dir = join(import.meta.dirname, '..', '..', 'fixtures', 'tls');
  const received: string[] = [];
  const server = createHttpsServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      received.push(`${req.url} ${(req.socket as any).servername ?? ''}`);
      res.end('ok');
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `https://localhost:${(server.address() as AddressInfo).port}/tls`;
  try {
    const sb = await createSandbox(listed.url, undefined, operatorKey);
    const insecure = await sb.api('/api/v1/webhooks/endpoints', {
      body: { url: `${base}?insecure`, topics: ['order.placed'], allowInsecureTls: true },
    });
    const strict = await sb.api('/api/v1/webhooks/endpoints', {
      body: { url: `${base}?strict`, topics: ['order.placed'] },
    });
    assert.equal(insecure.status, 201);
    assert.equal(strict.status, 201);
    await sb.api('/api/v1/orders', {
      body: {
        customerId: 'cus_0001',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'İzmir', district: 'Konak' },
      },
    });
    const list = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    const results = await Promise.all(list.map((d: any) => waitForDelivery(sb, d.id, (x) => x.attemptCount === 1)));
    const byUrl = Object.fromEntries(results.map((d: any) => [d.url.split('?')[1], d]));
    assert.equal(byUrl.insecure.status, 'succeeded', byUrl.insecure.attempts[0].error);
    assert.match(
      byUrl.strict.attempts[0].error,
      /TLS certificate rejected/,
      'a self-signed certificate is still refused',
    );
    assert.deepEqual(
      received,
      ['/tls?insecure localhost'],
      'SNI carried the name, though the socket went to the address judged',
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
