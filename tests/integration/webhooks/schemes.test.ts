// Signing schemes per endpoint (SPEC §11): real deliveries verified by the official Standard Webhooks
// library and by Svix's, on the real clock; ed25519 checked with node's own crypto from the whpk_ key
// the API shows; several schemes on one request during a migration.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { topics } from '../../../src/shared/topics.ts';
import { topicDataSchemas } from '../../../src/webhooks/topics/schemas.ts';
import { ed25519Accepts } from '../../helpers/ed25519.ts';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';
import { independentlyVerify, Receiver, type Received } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const headersOf = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
const mine = (path: string) => receiver.received.filter((r) => r.path.endsWith(path));

async function requestsTo(path: string, count: number): Promise<Received[]> {
  const deadline = Date.now() + 15_000;
  while (mine(path).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  assert.equal(mine(path).length, count, `${count} requests to ${path}`);
  return mine(path);
}

test('standard-webhooks: every topic, verified by the official standardwebhooks and svix libraries on the real clock', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/sw-all`, ['*'], { signature: 'standard-webhooks' });
  assert.deepEqual(endpoint.signature, ['standard-webhooks']);
  assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'base64 of 32 random bytes');
  assert.equal(endpoint.publicKey, null);
  for (const topic of topics)
    assert.equal((await sb.api('/api/v1/webhooks/test', { body: { topic, endpoint: endpoint.id } })).status, 202);
  const got = await requestsTo('/sw-all', topics.length);
  const standard = new StandardWebhook(endpoint.secret);
  const svix = new SvixWebhook(endpoint.secret);
  const seen = new Set<string>();
  for (const r of got) {
    const headers = headersOf(r);
    const payload = standard.verify(r.body, headers) as { type: string; timestamp: string; data: unknown };
    assert.doesNotThrow(() => svix.verify(r.body, headers));
    assert.deepEqual(
      Object.keys(payload),
      ['type', 'timestamp', 'data'],
      'the Standard Webhooks payload, nothing else',
    );
    assert.ok(
      topicDataSchemas[payload.type as keyof typeof topicDataSchemas].safeParse(payload.data).success,
      payload.type,
    );
    assert.match(payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(headers['webhook-id'], /^dlv_/);
    assert.equal(headers['x-service-signature'], undefined, 'no Sandbay headers on a Standard Webhooks-only endpoint');
    seen.add(payload.type);
  }
  assert.equal(seen.size, topics.length);
  assert.throws(() => standard.verify(`${got[0].body} `, headersOf(got[0])), /No matching signature/);
  assert.throws(
    () => new StandardWebhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got[0].body, headersOf(got[0])),
    /No matching signature/,
  );
});

test('webhook-id is the delivery id on every attempt; each attempt is signed afresh and recorded with its headers', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    rx.behaviour = { kind: 'status', status: 500 };
    const endpoint = await registerEndpoint(sb, rx.url, ['order.placed'], { signature: ['standard-webhooks'] });
    await placeOrder(sb);
    await rx.waitFor(1);
    const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    await waitForDelivery(sb, id, (d) => d.attemptCount === 1);
    rx.behaviour = { kind: 'status', status: 200 };
    await advance(sb, 31);
    const d = await waitForDelivery(sb, id, (x) => x.status === 'succeeded');
    const [first, second] = await rx.waitFor(2);
    assert.deepEqual([first.headers['webhook-id'], second.headers['webhook-id']], [id, id]);
    assert.equal(first.body, second.body, 'the same bytes');
    const verifier = new StandardWebhook(endpoint.secret);
    for (const r of [first, second]) assert.ok(verifier.verify(r.body, headersOf(r)));
    assert.deepEqual(
      d.attempts.map((a: any) => a.signature),
      [['standard-webhooks'], ['standard-webhooks']],
    );
    assert.deepEqual(
      d.attempts.map((a: any) => a.signatureHeaders['webhook-signature']),
      [first.headers['webhook-signature'], second.headers['webhook-signature']],
    );
    assert.equal(d.attempts[1].signatureHeader, second.headers['webhook-signature']);
    assert.deepEqual(Object.keys(d.envelope), ['type', 'timestamp', 'data']);
  } finally {
    await rx.close();
  }
});

test('rotation: the old-secret and the new-secret verifiers of both libraries accept the same delivery, for 24 h', async () => {
  const sb = await createSandbox(engine.url);
  const created = await registerEndpoint(sb, `${receiver.url}/sw-rotate`, ['order.placed'], {
    signature: 'standard-webhooks',
  });
  const rotated = (await sb.api(`/api/v1/webhooks/endpoints/${created.id}/rotate-secret`, { body: {} })).body;
  assert.notEqual(rotated.secret, created.secret);
  assert.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  await placeOrder(sb);
  const [r] = await requestsTo('/sw-rotate', 1);
  const headers = headersOf(r);
  assert.equal(headers['webhook-signature'].split(' ').length, 2, 'one v1 per live secret, space-separated');
  for (const secret of [created.secret, rotated.secret]) {
    assert.ok(new StandardWebhook(secret).verify(r.body, headers), 'standardwebhooks');
    assert.doesNotThrow(() => new SvixWebhook(secret).verify(r.body, headers), 'svix');
  }
  await advance(sb, 24 * 3600 + 60);
  await placeOrder(sb);
  const [, later] = await requestsTo('/sw-rotate', 2);
  assert.equal(later.headers['webhook-signature']!.toString().split(' ').length, 1, 'the old secret stopped signing');
  assert.ok(new StandardWebhook(rotated.secret).verify(later.body, headersOf(later)));
  assert.throws(
    () => new StandardWebhook(created.secret).verify(later.body, headersOf(later)),
    /No matching signature/,
  );
});

test('ed25519: v1a verifies with node crypto from the whpk_ key the API shows, and fails once one body byte changes', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/ed`, ['order.placed'], {
    signature: 'standard-webhooks-ed25519',
  });
  assert.match(endpoint.publicKey, /^whpk_[A-Za-z0-9+/]{43}=$/);
  const shown = (await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body;
  assert.equal(shown.publicKey, endpoint.publicKey, 'the public key is shown in every response, unmasked');
  const live = (await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/secrets`)).body.data;
  assert.equal(live[0].publicKey, endpoint.publicKey);
  await placeOrder(sb);
  const [r] = await requestsTo('/ed', 1);
  const headers = headersOf(r);
  assert.match(headers['webhook-signature'], /^v1a,[A-Za-z0-9+/]{86}==$/);
  assert.ok(ed25519Accepts(endpoint.publicKey, headers, r.body));
  const tampered = r.body.replace(/"total":(\d)/, (_m, d: string) => `"total":${(Number(d) + 1) % 10}`);
  assert.notEqual(tampered, r.body);
  assert.equal(ed25519Accepts(endpoint.publicKey, headers, tampered), false);
  assert.throws(
    () => new StandardWebhook(endpoint.secret).verify(r.body, headers),
    /No matching signature/,
    'no v1 to check',
  );
  const everything = JSON.stringify([endpoint, shown, live, await delivery(sb, headers['webhook-id'])]);
  assert.doesNotMatch(everything, /whsk_/, 'the private key never leaves the engine');

  const rotated = (await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, { body: {} })).body;
  assert.notEqual(rotated.publicKey, endpoint.publicKey, 'the key pair rotates with the secret');
  await placeOrder(sb);
  const [, second] = await requestsTo('/ed', 2);
  for (const key of [endpoint.publicKey, rotated.publicKey])
    assert.ok(ed25519Accepts(key, headersOf(second), second.body));
});

test('several schemes at once: both header sets on one request, a body both receivers read, one webhook-signature for v1 and v1a', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/all-schemes`, ['order.placed'], {
    signature: ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519', 'sandbay'],
  });
  assert.deepEqual(endpoint.signature, ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519']);
  await placeOrder(sb);
  const [r] = await requestsTo('/all-schemes', 1);
  const headers = headersOf(r);
  assert.ok(independentlyVerify(headers['x-service-signature'], r.body, endpoint.secret), 'Sandbay');
  assert.ok(new StandardWebhook(endpoint.secret).verify(r.body, headers), 'Standard Webhooks v1');
  assert.ok(ed25519Accepts(endpoint.publicKey, headers, r.body), 'v1a');
  assert.deepEqual(
    headers['webhook-signature'].split(' ').map((s) => s.split(',')[0]),
    ['v1', 'v1a'],
  );
  assert.equal(headers['x-service-delivery-id'], headers['webhook-id']);
  const body = JSON.parse(r.body);
  assert.deepEqual(Object.keys(body), ['topic', 'deliveryId', 'tenantId', 'occurredAt', 'type', 'timestamp', 'data']);
  assert.equal(body.type, body.topic);
  assert.equal(body.timestamp, body.occurredAt);
});

test('PATCH changes the scheme; deliveries made afterwards follow it, and an unknown scheme is a 422 naming the path', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/switch`, ['order.placed']);
  assert.deepEqual(endpoint.signature, ['sandbay']);
  assert.match(endpoint.secret, /^whsec_[A-Za-z0-9]{32}$/, "Sandbay's secrets are unchanged");
  const patched = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, {
    method: 'PATCH',
    body: { signature: ['standard-webhooks-ed25519', 'standard-webhooks'] },
  });
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.signature, ['standard-webhooks-ed25519', 'standard-webhooks']);
  assert.match(patched.body.publicKey, /^whpk_/, 'the current generation got a key');
  await placeOrder(sb);
  const [r] = await requestsTo('/switch', 1);
  assert.ok(
    new StandardWebhook(endpoint.secret).verify(r.body, headersOf(r)),
    "a base62 secret is base64 too: the receivers' secret still works",
  );
  assert.ok(ed25519Accepts(patched.body.publicKey, headersOf(r), r.body));

  const bad = problem(
    await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, {
      method: 'PATCH',
      body: { signature: ['sandbay', 'hmac'] },
    }),
    422,
    'validation_failed',
  );
  assert.equal(bad.errors[0].path, '/signature');
  assert.match(bad.errors[0].message, /sandbay, standard-webhooks, standard-webhooks-ed25519/);
  problem(
    await sb.api('/api/v1/webhooks/endpoints', { body: { url: receiver.url, topics: ['*'], signature: [] } }),
    422,
    'validation_failed',
  );
  assert.deepEqual((await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body.signature, [
    'standard-webhooks-ed25519',
    'standard-webhooks',
  ]);
});

test('the signed request (Copy as curl) is signed now by the engine with every scheme and live key; a bare test URL gets the test secret', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/resign`, ['order.placed'], {
    signature: ['standard-webhooks-ed25519', 'standard-webhooks', 'sandbay'],
  });
  await placeOrder(sb);
  const [sent] = await requestsTo('/resign', 1);
  const id = String(sent.headers['webhook-id']);
  await new Promise((r) => setTimeout(r, 1100));
  const signed = (await sb.api(`/api/v1/webhooks/deliveries/${id}/signed-request`)).body;
  assert.deepEqual([signed.method, signed.url, signed.body], ['POST', endpoint.url, sent.body]);
  assert.deepEqual(signed.signature, ['standard-webhooks-ed25519', 'standard-webhooks', 'sandbay']);
  assert.ok(signed.signedAt > Number(sent.headers['webhook-timestamp']), 'signed afresh');
  assert.equal(signed.headers['webhook-timestamp'], String(signed.signedAt));
  assert.ok(new StandardWebhook(endpoint.secret).verify(signed.body, signed.headers));
  assert.ok(ed25519Accepts(endpoint.publicKey, signed.headers, signed.body));
  assert.ok(independentlyVerify(signed.headers['x-service-signature'], signed.body, endpoint.secret));
  assert.equal(signed.headers['content-type'], 'application/json');

  const bare = (
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: `${receiver.url}/bare-resign` } })
  ).body;
  const bareSigned = (await sb.api(`/api/v1/webhooks/deliveries/${bare.deliveryId}/signed-request`)).body;
  assert.deepEqual(bareSigned.signature, ['sandbay']);
  assert.ok(independentlyVerify(bareSigned.headers['x-service-signature'], bareSigned.body, sb.webhookTestSecret));

  assert.equal((await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'DELETE' })).status, 204);
  problem(await sb.api(`/api/v1/webhooks/deliveries/${id}/signed-request`), 409, 'endpoint_deleted');
  problem(await sb.api('/api/v1/webhooks/deliveries/dlv_nope/signed-request'), 404, 'not_found');
});

test('a HAR export of a Standard Webhooks delivery carries the headers it went out with, which verify', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/har`, ['order.placed'], {
    signature: 'standard-webhooks',
  });
  await placeOrder(sb);
  const [sent] = await requestsTo('/har', 1);
  await waitForDelivery(sb, String(sent.headers['webhook-id']), (d) => d.attemptCount === 1);
  const har = (await sb.api(`/api/v1/webhooks/deliveries/export?format=har&endpointId=${endpoint.id}`)).body;
  const [entry] = har.log.entries;
  const headers: Record<string, string> = Object.fromEntries(entry.request.headers.map((h: any) => [h.name, h.value]));
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
    assert.equal(headers[name], sent.headers[name], name);
  assert.equal(headers['x-service-signature'], undefined);
  assert.equal(headers['x-service-topic'], undefined, "Sandbay's headers only where its scheme signed");
  assert.ok(new StandardWebhook(endpoint.secret).verify(entry.request.postData.text, headers));
});

test('a sandbox file carries the schemes and a disabled endpoint; the ed25519 key travels with secrets, else a new pair is made', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/portable`, ['order.placed'], {
    signature: ['sandbay', 'standard-webhooks-ed25519'],
  });
  await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { enabled: false } });
  for (const includeSecrets of [true, false]) {
    const res = await importBytes(
      engine.url,
      await exportBytes(engine.url, sb, includeSecrets ? 'includeSecrets=true' : ''),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const token = res.body.credentials.accessToken;
    const [copy] = (await call(engine.url, '/api/v1/webhooks/endpoints', { token })).body.data;
    assert.deepEqual(copy.signature, ['sandbay', 'standard-webhooks-ed25519']);
    assert.equal(copy.disabled.reason, 'user');
    if (includeSecrets) assert.equal(copy.publicKey, endpoint.publicKey, 'the same key pair');
    else {
      assert.match(copy.publicKey, /^whpk_/, 'a key pair was made on import');
      assert.notEqual(copy.publicKey, endpoint.publicKey);
    }
  }
});
