import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { independentlyVerify, Receiver } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('an order delivers order.placed with the production headers, envelope and a valid signature', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.placed']);
  const before = receiver.received.length;
  const order = await placeOrder(sb);
  const [req] = (await receiver.waitFor(before + 1)).slice(before);

  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(req.headers['x-service-topic'], 'order.placed');
  const deliveryId = req.headers['x-service-delivery-id'] as string;
  assert.match(deliveryId, /^dlv_/);
  const signature = req.headers['x-service-signature'] as string;
  assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
  const t = Number(/^t=(\d+)/.exec(signature)![1]);
  assert.ok(Math.abs(t - Date.now() / 1000) < 5, 'signed with the real clock');
  assert.ok(
    independentlyVerify(signature, req.body, endpoint.secret),
    'HMAC-SHA256 over "<t>.<raw body>" with the endpoint secret',
  );

  const envelope = JSON.parse(req.body);
  assert.deepEqual(Object.keys(envelope), ['topic', 'deliveryId', 'tenantId', 'occurredAt', 'data']);
  assert.equal(envelope.topic, 'order.placed');
  assert.equal(envelope.deliveryId, deliveryId);
  assert.equal(envelope.tenantId, sb.id);
  assert.match(envelope.occurredAt, /Z$/);
  assert.deepEqual(envelope.data, { orderId: order.id, total: order.total, currency: 'TRY', customerId: 'cus_0001' });

  const d = await waitForDelivery(sb, deliveryId, (x) => x.status === 'succeeded');
  assert.equal(d.endpointId, endpoint.id);
  assert.equal(d.rawBody, req.body, 'the stored bytes are the bytes sent');
  assert.equal(d.attempts.length, 1);
  assert.equal(d.attempts[0].trigger, 'initial');
  assert.equal(d.attempts[0].signatureHeader, signature);
  assert.equal(d.attempts[0].responseStatus, 200);
  assert.equal(d.attempts[0].responseBody, 'ok');
  assert.equal(d.attempts[0].url, receiver.url);
  assert.equal(d.nextAttemptAt, null);
});

test('only subscribed endpoints get a delivery; * and <category>.* subscribe to many', async () => {
  const sb = await createSandbox(engine.url);
  const all = await registerEndpoint(sb, `${receiver.url}?all`, ['*']);
  const orders = await registerEndpoint(sb, `${receiver.url}?orders`, ['order.*']);
  const payments = await registerEndpoint(sb, `${receiver.url}?payments`, ['payment.captured']);
  const order = await placeOrder(sb);
  const cancel = await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  assert.equal(cancel.status, 200);
  const list = await sb.api('/api/v1/webhooks/deliveries?limit=100');
  const byEndpoint = (id: string) =>
    list.body.data
      .filter((d: any) => d.endpointId === id)
      .map((d: any) => d.topic)
      .sort();
  assert.deepEqual(byEndpoint(all.id), ['order.cancelled', 'order.placed']);
  assert.deepEqual(byEndpoint(orders.id), ['order.cancelled', 'order.placed']);
  assert.deepEqual(byEndpoint(payments.id), []);
  const events = await sb.api('/api/v1/events');
  assert.deepEqual(
    events.body.data.map((e: any) => [e.topic, e.deliveryCount]),
    [
      ['order.cancelled', 2],
      ['order.placed', 2],
    ],
  );
  const one = await sb.api(`/api/v1/events/${events.body.data[0].id}`);
  assert.equal(one.body.deliveries.length, 2);
});

test('a test webhook to a bare URL is signed with the sandbox webhookTestSecret and built from its data', async () => {
  const sb = await createSandbox(engine.url);
  const before = receiver.received.length;
  const res = await sb.api('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: `${receiver.url}?bare` },
  });
  assert.equal(res.status, 202);
  assert.equal(res.body.status, 'pending');
  const [req] = (await receiver.waitFor(before + 1)).slice(before);
  assert.equal(req.headers['x-service-delivery-id'], res.body.deliveryId);
  assert.ok(independentlyVerify(req.headers['x-service-signature'] as string, req.body, sb.webhookTestSecret));
  const data = JSON.parse(req.body).data;
  const order = await sb.api(`/api/v1/orders/${data.orderId}`);
  assert.equal(order.status, 200, 'the sample names a real order of this sandbox');
  assert.equal(data.total, order.body.total);
});

test('a test webhook to a registered URL is signed with that endpoint secret; to an id it goes to the endpoint', async () => {
  const sb = await createSandbox(engine.url);
  const url = `${receiver.url}?registered`;
  const endpoint = await registerEndpoint(sb, url, ['payment.captured']);
  for (const target of [url, endpoint.id]) {
    const before = receiver.received.length;
    const res = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: target } });
    assert.equal(res.status, 202);
    const [req] = (await receiver.waitFor(before + 1)).slice(before);
    assert.ok(independentlyVerify(req.headers['x-service-signature'] as string, req.body, endpoint.secret));
    const d = await waitForDelivery(sb, res.body.deliveryId, (x) => x.status === 'succeeded');
    assert.equal(d.endpointId, endpoint.id);
    assert.equal(d.test, true);
  }
});

test('test webhook input errors are problem+json and store nothing', async () => {
  const sb = await createSandbox(engine.url);
  const unknown = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.shipped', endpoint: receiver.url } });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.code, 'unknown_topic');
  const badUrl = await sb.api('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: 'ftp://example.com/x' },
  });
  assert.equal(badUrl.status, 422);
  const noEndpoint = await sb.api('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: 'whe_doesnotexist' },
  });
  assert.equal(noEndpoint.status, 422);
  assert.equal(noEndpoint.body.code, 'endpoint_not_found');
  const list = await sb.api('/api/v1/webhooks/deliveries');
  assert.deepEqual(list.body.data, []);
  assert.deepEqual((await sb.api('/api/v1/events')).body.data, []);
});
