import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine({ attemptTimeoutMs: 1500 });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test("a sandbox never sees another's deliveries, events or endpoints", async () => {
  const a = await createSandbox(engine.url);
  const b = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(a, receiver.url, ['order.placed']);
  await placeOrder(a);
  const [d] = (await a.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(a, d.id, (x) => x.status === 'succeeded');
  assert.deepEqual((await b.api('/api/v1/webhooks/deliveries')).body.data, []);
  assert.deepEqual((await b.api('/api/v1/events')).body.data, []);
  problem(await b.api(`/api/v1/webhooks/deliveries/${d.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/webhooks/deliveries/${d.id}/replay`, { method: 'POST' }), 404, 'not_found');
  problem(await b.api(`/api/v1/webhooks/endpoints/${endpoint.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/webhooks/endpoints/${endpoint.id}/secrets`), 404, 'not_found');
  problem(await b.api(`/api/v1/events/${d.eventId}`), 404, 'not_found');
  const test = await b.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });
  problem(test, 422, 'endpoint_not_found');
});

test('reset clears the delivery log (pending included) of that sandbox only; endpoints survive', async () => {
  const a = await createSandbox(engine.url);
  const b = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    rx.behaviour = { kind: 'status', status: 500 };
    await registerEndpoint(a, rx.url, ['order.placed']);
    await registerEndpoint(b, rx.url, ['order.placed']);
    await placeOrder(a);
    await placeOrder(b);
    await rx.waitFor(2);
    const [bDelivery] = (await b.api('/api/v1/webhooks/deliveries')).body.data;
    await waitForDelivery(b, bDelivery.id, (x) => x.attemptCount === 1);
    const reset = await a.api('/api/v1/sandbox/reset', { method: 'POST' });
    assert.equal(reset.status, 200);
    assert.deepEqual((await a.api('/api/v1/webhooks/deliveries')).body.data, []);
    assert.deepEqual((await a.api('/api/v1/events')).body.data, []);
    assert.equal((await a.api('/api/v1/webhooks/endpoints')).body.data.length, 1);
    assert.equal((await a.api('/api/v1/sandbox/clock')).body.offsetSeconds, 0);
    await advance(a, 7200);
    assert.equal(
      rx.received.filter((r) => JSON.parse(r.body).tenantId === a.id).length,
      1,
      "a's pending retries are gone",
    );
    const bAfter = await b.api(`/api/v1/webhooks/deliveries/${bDelivery.id}`);
    assert.equal(bAfter.body.status, 'pending', "b's delivery is untouched");
    await advance(b, 31);
    await waitForDelivery(b, bDelivery.id, (x) => x.attemptCount === 2);

    const all = await a.api('/api/v1/sandbox/reset', { body: { scope: 'all' } });
    assert.match(all.body.credentials.accessToken, /^sat_/);
    problem(await a.api('/api/v1/webhooks/endpoints'), 401, 'invalid_token');
  } finally {
    await rx.close();
  }
});

test('a reset racing an in-flight attempt: the attempt records nothing and schedules nothing', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    rx.behaviour = { kind: 'hang' };
    await registerEndpoint(sb, rx.url, ['order.placed']);
    await placeOrder(sb);
    await rx.waitFor(1); // the attempt is in flight now
    assert.equal((await sb.api('/api/v1/sandbox/reset', { method: 'POST' })).status, 200);
    await new Promise((r) => setTimeout(r, 1800)); // the hanging attempt times out after the reset
    assert.deepEqual((await sb.api('/api/v1/webhooks/deliveries')).body.data, []);
    await advance(sb, 7200);
    assert.equal(rx.received.length, 1, 'no retry of a delivery the reset removed');
    // The sandbox works normally afterwards.
    rx.behaviour = { kind: 'status', status: 200 };
    await placeOrder(sb);
    await rx.waitFor(2);
    const [fresh] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    await waitForDelivery(sb, fresh.id, (x) => x.status === 'succeeded');
  } finally {
    await rx.close();
  }
});
