import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { harSchemaErrors, unknownHarFields } from '../../helpers/har.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const ok = new Receiver();
const failing = new Receiver();
before(async () => {
  await ok.start();
  await failing.start();
  failing.behaviour = { kind: 'status', status: 503, body: 'x'.repeat(5000), headers: { 'retry-after': '1' } };
});
after(async () => {
  await ok.close();
  await failing.close();
});

let made: Promise<TestSandbox> | undefined;
/** A sandbox whose deliveries answered 200, failed with 503, and could not connect at all. */
const sandbox = () =>
  (made ??= (async () => {
    const sb = await createSandbox(engine.url);
    await registerEndpoint(sb, `${ok.url}?tenant=demo`, ['order.*']);
    await registerEndpoint(sb, failing.url, ['order.placed']);
    await registerEndpoint(sb, 'http://127.0.0.1:9/refused', ['order.cancelled']);
    const order = await placeOrder(sb);
    await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
    const list = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    assert.equal(list.length, 4);
    for (const d of list) await waitForDelivery(sb, d.id, (x) => x.attemptCount === 1);
    return sb;
  })());

async function har(sb: TestSandbox, query = ''): Promise<any> {
  const res = await sb.api(`/api/v1/webhooks/deliveries/export?format=har${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="deliveries-.*\.har"/);
  return res.body;
}

test('deliveries export as HAR 1.2, valid against its JSON Schema, every attempt an entry', async () => {
  const sb = await sandbox();
  const doc = await har(sb);
  assert.deepEqual(harSchemaErrors(doc), []);
  assert.equal(doc.log.version, '1.2');
  assert.equal(doc.log.creator.name, 'Sandbay');
  assert.equal(doc.log.entries.length, 4);
  for (const entry of doc.log.entries) assert.deepEqual(unknownHarFields(entry), []);
  const starts = doc.log.entries.map((e: any) => e.startedDateTime);
  assert.deepEqual(starts, [...starts].sort(), 'oldest first');
});

test('each entry holds the exact request: the bytes and headers the receiver got, the signature included', async () => {
  const sb = await sandbox();
  const doc = await har(sb, '&status=succeeded');
  assert.ok(doc.log.entries.length >= 2);
  for (const entry of doc.log.entries) {
    const d = await delivery(sb, entry._sandbay.deliveryId);
    const attempt = d.attempts.find((a: any) => a.number === entry._sandbay.attempt);
    const got = ok.received.find((r) => r.headers['x-service-delivery-id'] === d.id)!;
    assert.equal(entry.request.method, 'POST');
    assert.equal(entry.request.url, attempt.url);
    assert.deepEqual(entry.request.queryString, [{ name: 'tenant', value: 'demo' }]);
    assert.equal(entry.request.postData.text, got.body, 'the bytes sent');
    assert.equal(entry.request.bodySize, Buffer.byteLength(got.body));
    const headers = Object.fromEntries(entry.request.headers.map((h: any) => [h.name, h.value]));
    assert.equal(headers['x-service-signature'], attempt.signatureHeader);
    for (const name of [
      'content-type',
      'content-length',
      'host',
      'user-agent',
      'x-service-topic',
      'x-service-delivery-id',
      'x-service-signature',
    ]) {
      assert.equal(headers[name], got.headers[name], `header ${name} as received`);
    }
    assert.equal(entry.response.status, 200);
    assert.equal(entry.response.statusText, 'OK');
    assert.equal(entry.response.content.text, 'ok');
    assert.equal(entry.time, attempt.durationMs);
    assert.equal(entry.timings.wait, attempt.durationMs);
  }
});

test('failed attempts: the status and headers answered with a 4 KiB excerpt of the body, or status 0 and the connection error', async () => {
  const sb = await sandbox();
  const failed = (await har(sb, '&status=pending')).log.entries;
  const unavailable = failed.find((e: any) => e.response.status === 503);
  assert.equal(unavailable.response.content.text.length, 4096);
  assert.equal(unavailable.response.content.comment, 'The first 4 KiB of the body');
  assert.ok(unavailable.response.headers.some((h: any) => h.name === 'retry-after' && h.value === '1'));
  const refused = failed.find((e: any) => e.response.status === 0);
  assert.match(refused.response._error, /refused|ECONNREFUSED/i);
  assert.equal(refused.comment, refused.response._error);
  assert.equal(refused.response.statusText, '');
});

test('the filters of the list apply, plus topic patterns and a limit', async () => {
  const sb = await sandbox();
  const cancelled = (await har(sb, '&topics=order.cancelled')).log.entries;
  assert.deepEqual([...new Set(cancelled.map((e: any) => e._sandbay.topic))], ['order.cancelled']);
  assert.equal((await har(sb, '&topics=order.*')).log.entries.length, 4);
  assert.equal((await har(sb, '&topics=payment.*')).log.entries.length, 0);
  assert.equal((await har(sb, '&limit=1')).log.entries.length, 1);
  problem(await sb.api('/api/v1/webhooks/deliveries/export?topics=order.placd'), 422, 'unknown_topic');
});

test('the same filter exports as fixtures: each delivery once, its bytes and headers without a signature', async () => {
  const sb = await sandbox();
  const res = await sb.api('/api/v1/webhooks/deliveries/export?format=fixtures&topics=order.placed');
  assert.equal(res.status, 200);
  assert.equal(res.body.sandbayFixtures, 1);
  assert.equal(res.body.source.sandboxId, sb.id);
  assert.equal(res.body.fixtures.length, 2);
  for (const f of res.body.fixtures) {
    assert.equal(f.topic, 'order.placed');
    assert.equal(f.body, (await delivery(sb, f.deliveryId)).rawBody);
    assert.equal(f.headers['x-service-signature'], undefined);
    assert.equal(f.headers['x-service-delivery-id'], f.deliveryId);
  }
});
