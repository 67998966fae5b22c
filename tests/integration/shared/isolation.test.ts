import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createSandbox, useEngine } from '../../helpers/engine.ts';
import { jsonOf, rawRequest } from '../../helpers/http.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { operatorKey, signIn } from '../../helpers/session.ts';
import { SseClient } from '../../helpers/sse.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// Isolation on a shared server (issue 11): a wildcard bind (beyond loopback, reached here over
// 127.0.0.1) published at a public URL, with the operator's admin key; the operator creates the
// sandboxes and lets receivers on this machine's loopback be reached (the test's receiver).
const publicUrl = 'http://sandbay.test:8080';
const engine = useEngine({ host: '0.0.0.0', publicUrl, adminKey: operatorKey, allowReceivers: ['127.0.0.1/32'] });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test("a sandbox's credentials cannot read another sandbox's deliveries, events, stream or inspector pages", async () => {
  const alice = await createSandbox(engine.url, 'alice', operatorKey);
  const bob = await createSandbox(engine.url, 'bob', operatorKey);
  await registerEndpoint(alice, receiver.url, ['order.placed']);
  await registerEndpoint(bob, receiver.url, ['order.placed']);
  await placeOrder(alice);
  const [secret] = (await alice.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(alice, secret.id, (d) => d.status === 'succeeded');

  const { cookie } = await signIn(engine.url, { clientId: bob.clientId, clientSecret: bob.clientSecret });
  const asBob = async (path: string, headers: Record<string, string> = {}) => {
    const res = await rawRequest(engine.url, path, { headers: { cookie, 'sandbay-sandbox': alice.id, ...headers } });
    return { status: res.status, body: /json/.test(String(res.headers['content-type'])) ? jsonOf(res) : res.body };
  };
  for (const auth of [{}, { authorization: `Bearer ${bob.token}` }] as Record<string, string>[]) {
    // Naming alice's sandbox is refused outright; without naming it, bob sees only his own.
    for (const path of [
      `/api/v1/webhooks/deliveries?sandbox=${alice.id}`,
      `/api/v1/events?sandbox=${alice.id}`,
      `/api/v1/webhooks/deliveries/${secret.id}`,
    ]) {
      const res = await asBob(path, auth);
      assert.equal(res.status, 403, path);
      assert.equal(res.body.code, 'sandbox_mismatch');
    }
    const own = { ...auth, 'sandbay-sandbox': bob.id };
    assert.deepEqual((await asBob('/api/v1/webhooks/deliveries', own)).body.data, []);
    assert.equal((await asBob(`/api/v1/webhooks/deliveries/${secret.id}`, own)).status, 404);
    assert.equal((await asBob(`/api/v1/events/${secret.eventId}`, own)).status, 404);
    assert.equal((await asBob('/api/v1/sandboxes', auth)).status, 403, 'no sandbox list');
  }

  // The inspector's deep link to alice's delivery is the bare app shell: no data of hers, no key.
  const page = await asBob(`/sandboxes/${alice.id}/deliveries/${secret.id}`);
  assert.equal(page.status, 200);
  for (const leak of [secret.id, secret.eventId, operatorKey, alice.token])
    assert.ok(!String(page.body).includes(leak), `the page holds no ${leak.slice(0, 4)}…`);

  // The stream naming alice's sandbox is refused; bob's own carries his deliveries only.
  assert.equal((await asBob(`/api/v1/events/stream?sandbox=${alice.id}`)).status, 403);
  const sse = new SseClient(`${engine.url}/api/v1/events/stream?sandbox=${bob.id}`, { cookie });
  assert.equal((await sse.open()).status, 200);
  try {
    await placeOrder(alice);
    await placeOrder(bob);
    const bobs = await sse.waitFor((m) => m.event === 'delivery.created');
    await sse.waitFor((m) => m.event === 'delivery.updated' && m.data.status === 'succeeded');
    const mine = (await bob.api('/api/v1/webhooks/deliveries')).body.data.map((d: any) => d.id);
    assert.ok(mine.includes(bobs.data.id));
    assert.ok(
      sse.messages.every((m) => mine.includes(m.data.id)),
      'nothing about alice',
    );
  } finally {
    sse.close();
  }
});

test('the public URL is what the OpenAPI servers entry, catcher URLs and the Host guard go by', async () => {
  const doc = await call(engine.url, '/api/v1/openapi.json');
  assert.deepEqual(
    doc.body.servers.map((s: { url: string }) => s.url),
    [publicUrl],
  );
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const catcher = await sb.api('/api/v1/catchers/shared-demo', { method: 'PUT' });
  assert.equal(catcher.body.url, `${publicUrl}/catch/${sb.id}/shared-demo`);
  const viaPublicHost = await rawRequest(engine.url, '/api/v1/health', { headers: { host: 'sandbay.test:8080' } });
  assert.equal(viaPublicHost.status, 200);
  const state = await rawRequest(engine.url, '/api/v1/session', { headers: { host: 'sandbay.test:8080' } });
  assert.deepEqual(jsonOf(state), { shared: true, publicUrl, openSandboxCreation: false, sandbox: null });
  const elsewhere = await rawRequest(engine.url, '/api/v1/health', { headers: { host: 'sandbay.evil:8080' } });
  assert.equal(elsewhere.status, 403);
});
