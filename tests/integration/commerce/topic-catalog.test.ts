import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { topics } from '../../../src/shared/topics.ts';
import { topicDataSchemas } from '../../../src/webhooks/topics/schemas.ts';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { independentlyVerify, Receiver } from '../../helpers/receiver.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { ok } from './helpers.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('GET /webhooks/topics and the OpenAPI webhooks section describe the data of all 33 topics', async () => {
  const sb = await createSandbox(engine.url);
  const list = ok(await sb.api('/api/v1/webhooks/topics')).data;
  assert.deepEqual(
    list.map((t: any) => t.topic),
    topics,
  );
  for (const t of list) {
    assert.equal(t.dataSchema.type, 'object', t.topic);
    assert.ok(Object.keys(t.dataSchema.properties).length >= 3, `${t.topic} has a real schema`);
  }
  const openapi = (await call(engine.url, '/api/v1/openapi.json')).body;
  assert.deepEqual(Object.keys(openapi.webhooks), topics);
  const data = (topic: string) =>
    openapi.webhooks[topic].post.requestBody.content['application/json'].schema.properties.data;
  assert.deepEqual(Object.keys(data('order.placed').properties), ['orderId', 'total', 'currency', 'customerId']);
  assert.ok(data('buybox.winner_changed').properties.previous && data('buybox.winner_changed').properties.current);
  for (const path of [
    '/api/v1/payments',
    '/api/v1/quotes/{id}/convert',
    '/api/v1/payouts/{id}/pay',
    '/api/v1/variants/{id}/buybox',
    '/api/v1/consents',
  ]) {
    assert.ok(openapi.paths[path], `${path} is documented`);
  }
});

test("every topic's test-webhook sample is built from the sandbox's rows and parses with its topic schema", async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}?samples`, ['*']);
  for (const topic of topics) {
    const res = await sb.api('/api/v1/webhooks/test', { body: { topic, endpoint: endpoint.id } });
    assert.equal(res.status, 202, `${topic}: ${JSON.stringify(res.body)}`);
  }
  const deadline = Date.now() + 15_000;
  let mine = [];
  while (
    (mine = receiver.received.filter((r) => JSON.parse(r.body).tenantId === sb.id)).length < topics.length &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(mine.map((r) => r.headers['x-service-topic']).sort(), [...topics].sort());
  for (const req of mine) {
    assert.ok(independentlyVerify(req.headers['x-service-signature'] as string, req.body, endpoint.secret));
    const { topic, data } = JSON.parse(req.body);
    const parsed = topicDataSchemas[topic as keyof typeof topicDataSchemas].safeParse(data);
    assert.ok(parsed.success, `${topic}: ${JSON.stringify(parsed.error?.issues)}`);
    assert.deepEqual(parsed.data, data, `${topic} sample has exactly the schema's fields`);
  }
  const sample = (topic: string) => JSON.parse(mine.find((r) => r.headers['x-service-topic'] === topic)!.body).data;
  assert.equal(sample('quote.converted').orderId, 'ord_0058', 'samples come from the seeded rows');
  assert.equal(sample('vendor.applied').vendorId, 'ven_0003');
});

test('a sandbox whose sample rows were deleted answers 422 no_sample_data, never a 5xx', async () => {
  const sb = await createSandbox(engine.url);
  for (const id of ['rep_0001', 'rep_0002'])
    assert.equal((await sb.api(`/api/v1/reports/${id}`, { method: 'DELETE' })).status, 204);
  problem(
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'saved_report.due', endpoint: receiver.url } }),
    422,
    'no_sample_data',
  );
  problem(
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'nope.nope', endpoint: receiver.url } }),
    422,
    'unknown_topic',
  );
});

test('an unknown topic says which of the 33 it most likely meant, wherever a topic is named', async () => {
  const sb = await createSandbox(engine.url);
  const sent = problem(
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.plcaed', endpoint: receiver.url } }),
    422,
    'unknown_topic',
  );
  assert.equal(sent.detail, 'Unknown topic order.plcaed. Did you mean order.placed? See GET /api/v1/webhooks/topics.');
  assert.deepEqual(sent.errors, [{ path: '/topic', message: 'Not one of the 33 topics. Did you mean order.placed?' }]);
  const listed = problem(await sb.api('/api/v1/webhooks/deliveries?topic=Payment.Captured'), 422, 'unknown_topic');
  assert.match(listed.detail, /Did you mean payment\.captured\?/);
  const far = problem(
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'nope.nope', endpoint: receiver.url } }),
    422,
    'unknown_topic',
  );
  assert.doesNotMatch(far.detail, /Did you mean/, 'no guess when nothing is close');
  assert.deepEqual(far.suggestions, []);
  const subscribed = problem(
    await sb.api('/api/v1/webhooks/endpoints', {
      body: { url: receiver.url, topics: ['ordr.*', 'order.placed', 'winner_changed'] },
    }),
    422,
    'unknown_topic',
  );
  assert.match(
    subscribed.detail,
    /^Unknown topics: ordr\.\*, winner_changed\. Did you mean order\.\* or buybox\.winner_changed\?/,
  );
  assert.deepEqual(subscribed.suggestions, ['order.*', 'buybox.winner_changed']);
  assert.deepEqual(
    subscribed.errors.map((e: { path: string }) => e.path),
    ['/topics/0', '/topics/2'],
  );
  assert.equal(
    subscribed.errors[1].message,
    'winner_changed is not a topic, *, or <category>.*; did you mean buybox.winner_changed?',
  );
});

test('an unknown topic suggests the topics of its subject that mean the same, as well as the closest spelling', async () => {
  const sb = await createSandbox(engine.url);
  const cases: [string, string, Record<string, unknown>, string[]][] = [
    [
      'the test webhook',
      '/api/v1/webhooks/test',
      { body: { topic: 'order.create', endpoint: receiver.url } },
      ['order.placed'],
    ],
    [
      'the test webhook',
      '/api/v1/webhooks/test',
      { body: { topic: 'payment.captur', endpoint: receiver.url } },
      ['payment.captured'],
    ],
    ['the deliveries list', '/api/v1/webhooks/deliveries?topic=product.deleted', {}, ['product.archived']],
    ['the events list', '/api/v1/events?topic=payment.succeeded', {}, ['payment.captured']],
    ['a DLQ replay', '/api/v1/webhooks/dlq/replay', { body: { topic: 'quote.approved' } }, ['quote.accepted']],
    [
      'a subscription',
      '/api/v1/webhooks/endpoints',
      { body: { url: receiver.url, topics: ['orders.created', 'vendor.*'] } },
      ['order.placed'],
    ],
  ];
  for (const [where, path, init, suggestions] of cases) {
    const body = problem(await sb.api(path, init), 422, 'unknown_topic');
    assert.deepEqual(body.suggestions, suggestions, where);
    assert.match(body.detail, new RegExp(`Did you mean ${suggestions[0].replace('.', '\\.')}\\?`), where);
  }
  // The OpenAPI document declares the field on problem details.
  const doc = await call(engine.url, '/api/v1/openapi.json');
  assert.equal(doc.body.components.schemas.Problem.properties.suggestions.type, 'array');
});
