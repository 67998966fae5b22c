// Edit and resend (issue 31): any delivery sent again as a new one, its data edited and checked against
// the topic's schema, signed afresh in every scheme of its endpoint (each verified by code that is not
// the engine's signer: the receiver kit and node:crypto for Sandbay's, the standardwebhooks library,
// node:crypto for ed25519), linked both ways, retried and dead-lettered like any other; the original untouched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { verifyWebhook } from '../../../src/receiver/index.ts';
import { ed25519Accepts } from '../../helpers/ed25519.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { independentlyVerify, Receiver, type Received } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const headersOf = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));

async function firstDelivery(sb: Awaited<ReturnType<typeof createSandbox>>): Promise<any> {
  const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  return delivery(sb, id);
}

test('an edited resend reaches the receiver signed in every scheme of the endpoint; the original is unchanged', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    const endpoint = await registerEndpoint(sb, rx.url, ['order.placed'], {
      signature: ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519'],
    });
    await placeOrder(sb);
    await rx.waitFor(1);
    const original = await waitForDelivery(sb, (await firstDelivery(sb)).id, (d) => d.status === 'succeeded');

    const res = await sb.api(`/api/v1/webhooks/deliveries/${original.id}/resend`, {
      body: { patch: [{ op: 'replace', path: '/total', value: 12.5 }], data: { note: 'edited' } },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const resend = res.body;
    assert.notEqual(resend.id, original.id);
    assert.deepEqual(resend.resentFrom, {
      id: original.id,
      edited: true,
      traceId: original.traceId,
      spanId: original.attempts[0].traceparent.split('-')[2],
    });
    assert.notEqual(resend.eventId, original.eventId, 'edited data is an event of its own');
    assert.equal(resend.endpointId, endpoint.id);

    const [, got] = await rx.waitFor(2);
    const headers = headersOf(got);
    const sent = JSON.parse(got.body);
    assert.deepEqual(sent.data, { ...original.envelope.data, total: 12.5, note: 'edited' });
    assert.equal(sent.deliveryId, resend.id);
    assert.equal(sent.occurredAt, original.envelope.occurredAt, 'the event occurred when it did');
    assert.equal(headers['x-service-delivery-id'], resend.id);
    assert.equal(headers['webhook-id'], resend.id);
    const verified = verifyWebhook({
      payload: got.body,
      header: headers['x-service-signature'],
      secret: endpoint.secret,
    });
    assert.equal((verified as { deliveryId: string }).deliveryId, resend.id);
    assert.ok(independentlyVerify(headers['x-service-signature'], got.body, endpoint.secret));
    assert.ok(new StandardWebhook(endpoint.secret).verify(got.body, headers));
    assert.ok(ed25519Accepts(endpoint.publicKey, headers, got.body));

    const done = await waitForDelivery(sb, resend.id, (d) => d.status === 'succeeded');
    assert.equal(done.rawBody, got.body);
    const after = await delivery(sb, original.id);
    assert.equal(after.rawBody, original.rawBody, 'the original keeps its bytes');
    assert.equal(after.attempts.length, 1, 'and its attempts');
    assert.deepEqual(after.resentAs, [resend.id]);
    assert.equal(after.resentFrom, null);
  } finally {
    await rx.close();
  }
});

test('a dead delivery resent unchanged with keepDeliveryId carries the original id, and is retried to dead like any other', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    rx.behaviour = { kind: 'status', status: 500 };
    const endpoint = await registerEndpoint(sb, rx.url, ['order.placed'], { signature: 'standard-webhooks' });
    await placeOrder(sb);
    await rx.waitFor(1);
    const { id } = await firstDelivery(sb);
    await waitForDelivery(sb, id, (d) => d.attemptCount === 1);
    await advance(sb, 2 * 3600);
    const dead = await waitForDelivery(sb, id, (d) => d.status === 'dead');

    const res = await sb.api(`/api/v1/webhooks/deliveries/${id}/resend`, { body: { keepDeliveryId: true } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body.resentFrom, {
      id,
      edited: false,
      traceId: dead.traceId,
      spanId: dead.attempts[4].traceparent.split('-')[2],
    });
    assert.equal(res.body.eventId, dead.eventId, 'unchanged data stays in its event');
    const got = (await rx.waitFor(6))[5];
    assert.equal(got.headers['webhook-id'], id, 'the original delivery id, for the receiver to dedupe');
    assert.deepEqual(JSON.parse(got.body).data, dead.envelope.data);
    assert.ok(new StandardWebhook(endpoint.secret).verify(got.body, headersOf(got)));

    const failed = await waitForDelivery(sb, res.body.id, (d) => d.attemptCount === 1);
    assert.equal(failed.status, 'pending', 'a failed resend is retried');
    assert.ok(failed.nextAttemptAt);
    await advance(sb, 2 * 3600);
    const gone = await waitForDelivery(sb, res.body.id, (d) => d.status === 'dead');
    assert.equal(gone.attempts.length, 5);
    assert.equal((await rx.waitFor(10)).filter((r) => r.headers['webhook-id'] === id).length, 10);
    assert.equal((await delivery(sb, id)).status, 'dead', 'the original stays as it was');
  } finally {
    await rx.close();
  }
});

test('a pending delivery and a test sent to a bare URL can be resent; a resend of a resend keeps its edits', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    rx.behaviour = { kind: 'status', status: 500 };
    const sent = await sb.api('/api/v1/webhooks/test', {
      body: { topic: 'order.placed', endpoint: `${rx.url}/bare`, data: { total: 3 } },
    });
    const pending = await waitForDelivery(sb, sent.body.deliveryId, (d) => d.attemptCount === 1);
    assert.equal(pending.status, 'pending');
    rx.behaviour = { kind: 'status', status: 200 };
    const first = await sb.api(`/api/v1/webhooks/deliveries/${pending.id}/resend`, {
      body: { data: { customerId: 'cus_0002' } },
    });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const second = await sb.api(`/api/v1/webhooks/deliveries/${first.body.id}/resend`, { body: {} });
    assert.equal(second.status, 202);
    const got = (await rx.waitFor(3))[2];
    assert.match(got.path, /\/bare$/);
    assert.deepEqual(JSON.parse(got.body).data, { ...pending.envelope.data, customerId: 'cus_0002' });
    assert.ok(independentlyVerify(String(got.headers['x-service-signature']), got.body, sb.webhookTestSecret));
    assert.deepEqual((await delivery(sb, first.body.id)).resentAs, [second.body.id]);
    assert.deepEqual([second.body.resentFrom.id, second.body.resentFrom.edited], [first.body.id, false]);
  } finally {
    await rx.close();
  }
});

test('an edit that breaks the topic schema is refused naming the path; nothing is sent', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  await placeOrder(sb);
  const { id } = await firstDelivery(sb);
  const before = (await sb.api('/api/v1/webhooks/deliveries')).body.data.length;

  const typed = problem(
    await sb.api(`/api/v1/webhooks/deliveries/${id}/resend`, { body: { data: { total: 'lots' } } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    typed.errors.map((e: { path: string }) => e.path),
    ['/data/total'],
  );
  const whole = problem(
    await sb.api(`/api/v1/webhooks/deliveries/${id}/resend`, { body: { editedData: { orderId: 'ord_1' } } }),
    422,
    'validation_failed',
  );
  assert.ok(
    whole.errors.some((e: { path: string }) => e.path === '/data/customerId'),
    JSON.stringify(whole),
  );
  const patch = problem(
    await sb.api(`/api/v1/webhooks/deliveries/${id}/resend`, {
      body: { patch: [{ op: 'replace', path: '/nope', value: 1 }] },
    }),
    422,
    'validation_failed',
  );
  assert.equal(patch.errors[0].path, '/patch/0/path');
  problem(await sb.api('/api/v1/webhooks/deliveries/dlv_nope/resend', { body: {} }), 404, 'not_found');
  problem(
    await sb.api(`/api/v1/webhooks/deliveries/${id}/resend`, { body: { keepDeliveryId: 'yes' } }),
    422,
    'validation_failed',
  );
  assert.equal((await sb.api('/api/v1/webhooks/deliveries')).body.data.length, before);
  assert.deepEqual((await delivery(sb, id)).resentAs, []);
});
