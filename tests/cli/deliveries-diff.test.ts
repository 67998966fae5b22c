import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { Receiver } from '../helpers/receiver.ts';
import { advance, waitForDelivery } from '../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

async function testWebhook(sb: TestSandbox, data?: Record<string, unknown>): Promise<string> {
  const res = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: receiver.url, data } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.deliveryId;
}

test('two attempts of one delivery: the same envelope, re-signed, and the answers that differ', async () => {
  const sb = await createSandbox(engine.url);
  receiver.behaviour = { kind: 'status', status: 503, body: 'down for maintenance', headers: { 'x-node': 'a' } };
  const id = await testWebhook(sb);
  await waitForDelivery(sb, id, (d) => d.attempts.length === 1);
  receiver.behaviour = { kind: 'status', status: 200, body: 'ok', headers: { 'x-node': 'b' } };
  await advance(sb, 30);
  await waitForDelivery(sb, id, (d) => d.status === 'succeeded');

  const res = await sb.api(`/api/v1/webhooks/deliveries/${id}/compare?attempt=1&toAttempt=2`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const c = res.body;
  assert.deepEqual([c.from.attempt, c.to.attempt, c.envelope, c.bodyIdentical], [1, 2, [], true]);
  assert.ok(
    c.requestHeaders.some((h: { name: string }) => h.name === 'traceparent'),
    'each attempt is its own span',
  );
  assert.deepEqual(c.response.status, { from: 503, to: 200 });
  assert.deepEqual(
    c.response.headers.find((h: { name: string }) => h.name === 'x-node'),
    { name: 'x-node', from: 'a', to: 'b' },
  );
  assert.deepEqual(c.response.body, { same: false, from: 'down for maintenance', to: 'ok' });

  const text = await runCli(['deliveries', 'diff', `${id}:1`, `${id}:2`, ...as(sb)]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^Comparing ${id} attempt 1 \\(order\\.placed\\) with ${id} attempt 2`));
  assert.match(text.stdout, /^Envelope: the same bytes$/m);
  assert.match(text.stdout, /^ {2}status: 503 → 200$/m);
  assert.match(text.stdout, /^ {2}~ x-node: a → b$/m);
  assert.match(text.stdout, /^ {2}- down for maintenance\n {2}\+ ok$/m);
});

test('two deliveries: the envelope by path, as the API, the CLI and its --json say it', async () => {
  const sb = await createSandbox(engine.url);
  const a = await testWebhook(sb, { total: 10 });
  const b = await testWebhook(sb, { total: 12.5 });
  await waitForDelivery(sb, b, (d) => d.attempts.length === 1);
  await waitForDelivery(sb, a, (d) => d.attempts.length === 1);
  const c = await runCliJson(['deliveries', 'diff', a, b, ...as(sb)]);
  const data = c.envelope.filter((e: { path: string }) => e.path.startsWith('/data/'));
  assert.deepEqual(data, [{ path: '/data/total', op: 'replace', from: 10, to: 12.5 }]);
  assert.deepEqual(
    c.envelope.find((e: { path: string }) => e.path === '/deliveryId'),
    { path: '/deliveryId', op: 'replace', from: a, to: b },
  );
  assert.equal(c.bodyIdentical, false);
  const text = await runCli(['deliveries', 'diff', a, b, ...as(sb)]);
  assert.match(text.stdout, /^ {2}~ \/data\/total: 10 → 12\.5$/m);
});

test('an attempt a delivery does not have is 422 naming the parameter; another sandbox’s delivery is 404', async () => {
  const sb = await createSandbox(engine.url);
  const other = await createSandbox(engine.url);
  const id = await testWebhook(sb);
  await waitForDelivery(sb, id, (d) => d.attempts.length === 1);
  const missing = await sb.api(`/api/v1/webhooks/deliveries/${id}/compare?toAttempt=7`);
  assert.equal(missing.status, 422);
  assert.equal(missing.body.errors[0].path, '/toAttempt');
  assert.equal((await other.api(`/api/v1/webhooks/deliveries/${id}/compare`)).status, 404);
  assert.equal((await sb.api(`/api/v1/webhooks/deliveries/${id}/compare?attempt=0`)).status, 422);
});
