import assert from 'node:assert/strict';
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
  publicUrl: 'http://sandbay.test:8080', adminKey: operatorKey, outboundLookup: testResolver(loopbackNames), attemptTimeoutMs: 3000,
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
    v4: v4.port, v6: v6.port, engine: engine.running.port,
    database: engine.databaseUrl ? Number(new URL(engine.databaseUrl).port) : undefined,
  });
  for (const { label, url } of spellings) {
    const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: url } });
    assert.equal(sent.status, 202, `${label}: ${JSON.stringify(sent.body)}`);
    const done = await waitForDelivery(sb, sent.body.deliveryId, (d) => d.attempts.length === 1);
    const [attempt] = done.attempts;
    assert.doesNotMatch(String(attempt.error), /blocked_by_policy/, label);
    if (label === "the server's own port") assert.equal(typeof attempt.responseStatus, 'number', 'the engine answered');
    else if (label === 'the database port') assert.notEqual(attempt.error, null, 'reached PostgreSQL, which speaks no HTTP');
    else {
      assert.equal(attempt.responseStatus, 200, `${label}: ${attempt.error}`);
      const receiver = label === '[::1]' ? v6 : v4;
      assert.ok(receiver.received.some((r) => r.headers['x-service-delivery-id'] === sent.body.deliveryId), `${label} reached the receiver`);
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
