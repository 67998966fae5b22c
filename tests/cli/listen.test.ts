import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { after, before, test } from 'node:test';
import { ed25519Accepts } from '../helpers/ed25519.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, assertOneLineFailures, CliProcess } from '../helpers/cli.ts';
import { startTestReceiver } from '../helpers/check-receivers.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';
import { placeOrder } from '../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

async function sendTest(sb: TestSandbox, topic: string, endpoint: string): Promise<string> {
  const res = await sb.api('/api/v1/webhooks/test', { body: { topic, endpoint } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.deliveryId;
}

test('listen prints each delivery live: created, the attempt outcome, the next retry', async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess(['listen', ...as(sb)]);
  try {
    await listen.waitForLine(/^> Ready! Listening to deliveries \(\^C to quit\)$/);
    const ok = await sendTest(sb, 'order.placed', receiver.url);
    await listen.waitForLine(new RegExp(`^\\S+ \\S+\\s+--> order\\.placed \\[${ok}\\]$`));
    await listen.waitForLine(new RegExp(`<--  \\[200\\] POST ${receiver.url} \\[${ok}\\] \\d+ ms$`));
    const failing = await sendTest(sb, 'order.cancelled', 'http://127.0.0.1:9/closed');
    await listen.waitForLine(
      new RegExp(`<--  \\[ERR\\] POST http://127\\.0\\.0\\.1:9/closed \\[${failing}\\] \\d+ ms connection refused$`),
    );
    await listen.waitForLine(new RegExp(`next attempt in \\d+s \\[${failing}\\]$`));
  } finally {
    const result = await listen.stop();
    assert.equal(result.code, 0, result.stderr);
  }
});

test('listen --topics shows only matching deliveries; --json prints one JSON object per line', async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess(['listen', '--topics', 'order.cancelled', '--json', ...as(sb)]);
  try {
    await listen.waitForLine(/"event":"ready"/);
    const skipped = await sendTest(sb, 'order.placed', receiver.url);
    const shown = await sendTest(sb, 'order.cancelled', receiver.url);
    await listen.waitForLine(new RegExp(`"event":"delivery.updated".*"${shown}"`));
    const messages = listen.lines.map((l) => JSON.parse(l));
    assert.deepEqual(
      messages.slice(1).map((m) => m.event),
      ['delivery.created', 'attempt.finished', 'delivery.updated'],
    );
    assert.ok(messages.slice(1).every((m) => m.data.id === shown && m.data.topic === 'order.cancelled'));
    assert.ok(!listen.stdout.includes(skipped));
  } finally {
    await listen.stop();
  }
});

test('listen --forward-to registers a temporary endpoint, prints its secret, forwards signed deliveries and deletes it on Ctrl-C', async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess(['listen', '--forward-to', receiver.url.replace('http://', ''), ...as(sb)]);
  let endpointId: string;
  try {
    const ready = await listen.waitForLine(/^> Ready! Forwarding/);
    const [, id, secret] =
      /temporary endpoint (whe_\w+)\)\. Your webhook signing secret is (whsec_\w+) \(\^C to quit\)$/.exec(ready) ?? [];
    assert.ok(id && secret, ready);
    endpointId = id;
    const endpoint = (await sb.api(`/api/v1/webhooks/endpoints/${id}`)).body;
    assert.deepEqual([endpoint.url, endpoint.topics], [receiver.url, ['*']]);

    // A real event, not a test webhook: the order goes to every subscribed endpoint.
    const order = await placeOrder(sb);
    const line = await listen.waitForLine(/<--  \[200\] POST /);
    const deliveryId = /\[(dlv_\w+)\]/.exec(line)![1];
    const got = receiver.received.find((r) => r.headers['x-service-delivery-id'] === deliveryId)!;
    assert.equal(JSON.parse(got.body).data.orderId, order.id);
    assert.ok(
      independentlyVerify(String(got.headers['x-service-signature']), got.body, secret),
      'signed with the printed secret',
    );
  } finally {
    const result = await listen.stop();
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /> Deleted the temporary endpoint whe_\w+\.\n$/);
  }
  assert.equal((await sb.api(`/api/v1/webhooks/endpoints/${endpointId!}`)).status, 404);
});

test("listen --forward-to: a refused forward with the receiver's Sandbay-Echo gets the doctor's diagnosis and the fix in its language", async () => {
  const sb = await createSandbox(engine.url);
  let secret = '';
  const broken = await startTestReceiver(() => secret, 'strips-prefix', 'echoes');
  const listen = new CliProcess(['listen', '--forward-to', broken.url, ...as(sb)]);
  try {
    const ready = await listen.waitForLine(/^> Ready! Forwarding/);
    secret = /secret is (whsec_\w+)/.exec(ready)![1];
    await placeOrder(sb);
    await listen.waitForLine(/<--  \[400\] POST /);
    await listen.waitForLine(
      /^ {5}doctor: It keyed the HMAC with the secret without its whsec_ prefix\. The HMAC key is the whole whsec_… string/,
    );
    await listen.waitForLine(/^ {5}fix: {4}In Node\.js: createHmac\('sha256', secret\) with the whole whsec_… string/);
  } finally {
    await listen.stop();
    await broken.close();
  }
});

test('listen --forward-to --signature standard-webhooks-ed25519,standard-webhooks: the ready line gives the secret and the public key that verify', async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess([
    'listen',
    '--forward-to',
    receiver.url,
    '--signature',
    'standard-webhooks-ed25519,standard-webhooks',
    ...as(sb),
  ]);
  try {
    const ready = await listen.waitForLine(/^> Ready! Forwarding/);
    const [, id, secret, publicKey] =
      /\(temporary endpoint (whe_\w+), signed standard-webhooks-ed25519 \+ standard-webhooks\)\. Your webhook signing secret is (whsec_\S+)\. Your ed25519 public key is (whpk_\S+) \(\^C to quit\)$/.exec(
        ready,
      ) ?? [];
    assert.ok(id && secret && publicKey, ready);
    await placeOrder(sb);
    const line = await listen.waitForLine(/<--  \[200\] POST /);
    const deliveryId = /\[(dlv_\w+)\]/.exec(line)![1];
    const got = receiver.received.find((r) => r.headers['webhook-id'] === deliveryId)!;
    const headers = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]));
    assert.ok(new Webhook(secret).verify(got.body, headers), 'the printed secret verifies v1');
    assert.ok(ed25519Accepts(publicKey, headers, got.body), 'the printed key verifies v1a');
  } finally {
    await listen.stop();
  }
  await assertOneLineFailures([
    [['listen', '--forward-to', receiver.url, '--signature', 'hmac', ...as(sb)], /unknown signing scheme hmac/],
    [['listen', '--signature', 'sandbay', ...as(sb)], /--signature needs --forward-to/],
  ]);
});

test('listen --forward-to: a receiver answering 410 Gone hears that the temporary endpoint is disabled and its deliveries wait, not of a next attempt', async () => {
  const sb = await createSandbox(engine.url);
  const gone = new Receiver();
  await gone.start();
  gone.behaviour = { kind: 'status', status: 410 };
  const listen = new CliProcess(['listen', '--forward-to', gone.url, ...as(sb)]);
  try {
    const id = /temporary endpoint (whe_\w+)/.exec(await listen.waitForLine(/^> Ready! Forwarding/))![1];
    await placeOrder(sb);
    await listen.waitForLine(/<--  \[410\] POST /);
    const line = await listen.waitForLine(/410 Gone: /);
    assert.match(
      line,
      new RegExp(
        `410 Gone: Sandbay disabled endpoint ${id}, .*this and later deliveries wait \\[dlv_\\w+\\]\\. Answer 2xx again, then enable it: .*PATCH /api/v1/webhooks/endpoints/${id} \\{"enabled": true\\}`,
      ),
    );
    await placeOrder(sb);
    await listen.waitForLine(/--> order\.placed \[dlv_\w+\] \(waits: the endpoint is disabled\)$/);
    assert.doesNotMatch(listen.stdout, /next attempt in/);
  } finally {
    await listen.stop();
    await gone.close();
  }
});

test("listen shows only the forwarded endpoint's deliveries when forwarding", async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess(['listen', '--forward-to', receiver.url, ...as(sb)]);
  try {
    await listen.waitForLine(/^> Ready!/);
    const other = await sendTest(sb, 'order.placed', 'http://127.0.0.1:9/other');
    await placeOrder(sb);
    await listen.waitForLine(/<--  \[200\]/);
    assert.ok(!listen.stdout.includes(other));
  } finally {
    await listen.stop();
  }
});

test('listen with a bad token or an unknown topic fails in one line', async () => {
  const badToken = new CliProcess(['listen', '--url', engine.url, '--token', 'sat_nope']);
  assertOneLineFailure(await badToken.exited, /invalid_token/);
  const sb = await createSandbox(engine.url);
  await assertOneLineFailures([
    [
      ['listen', '--topics', 'order.shipped', ...as(sb)],
      /Unknown topic order\.shipped\. `sandbay topics` lists all 33\.$/,
    ],
    [
      ['listen', '--topics', 'order.create,payment.*', ...as(sb)],
      /Unknown topic order\.create\. Did you mean order\.placed\? `sandbay topics` lists all 33\.$/,
    ],
    [['listen', '--forward-to', 'ftp://x', ...as(sb)], /validation_failed/],
  ]);
});

test('listen --forward-to --chaos --seed: the temporary endpoint injects the faults, and the lines say which', async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess([
    'listen',
    '--forward-to',
    receiver.url,
    '--chaos',
    'duplicate=1,reorder=2s,delay=300ms',
    '--seed',
    '9',
    ...as(sb),
  ]);
  try {
    await listen.waitForLine(
      /^> Chaos: duplicate 100 %, reorder within 2000 ms, delay 300 ms \(seed 9\); each fault is marked on its attempt in the inspector\.$/,
    );
    await listen.waitForLine(/^> Ready! Forwarding/);
    const order = await placeOrder(sb);
    const deliveries = (await sb.api(`/api/v1/webhooks/deliveries?search=${order.id}`)).body.data;
    const id = deliveries[0].id;
    await listen.waitForLine(new RegExp(`held \\d+ ms by chaos \\[${id}\\]$`));
    await listen.waitForLine(
      new RegExp(`<--  \\[200\\] POST ${receiver.url} \\[${id}\\] \\d+ ms \\(chaos: sent again\\)$`),
      10_000,
    );
    assert.equal(receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id).length, 2);
  } finally {
    await listen.stop();
  }
});

test('listen --chaos needs --forward-to, and a bad fault is a one-line error', async () => {
  const sb = await createSandbox(engine.url);
  await assertOneLineFailures([
    [['listen', '--chaos', 'duplicate=0.2', ...as(sb)], /--chaos needs --forward-to/],
    [['listen', '--forward-to', receiver.url, '--chaos', 'duplicate=3', ...as(sb)], /must be a rate from 0 to 1/],
    [['listen', '--forward-to', receiver.url, '--chaos', 'jitter=1s', ...as(sb)], /unknown --chaos fault jitter/],
  ]);
});
