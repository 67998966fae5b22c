import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, CliProcess, runCli } from '../helpers/cli.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';
import { placeOrder } from '../helpers/webhooks.ts';

const engine = useEngine();
const orders = new Receiver();
const rest = new Receiver();
before(async () => {
  await orders.start();
  await rest.start();
});
after(async () => {
  await orders.close();
  await rest.close();
});

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

async function readySecret(listen: CliProcess): Promise<string> {
  const ready = await listen.waitForLine(/Your webhook signing secret is whsec_/);
  return /Your webhook signing secret is (whsec_\S+) \(/.exec(ready)![1];
}

test('listen --forward routes by topic, first match wins, and each line names the route', async () => {
  const sb = await createSandbox(engine.url);
  const listen = new CliProcess([
    'listen',
    '--forward',
    `order.*=${orders.url}`,
    '--forward',
    `*=${rest.url}`,
    ...as(sb),
  ]);
  try {
    await listen.waitForLine(/^> Ready! Forwarding by topic, first match wins/);
    await listen.waitForLine(new RegExp(`^>   order\\.\\* → ${orders.url} \\(whe_\\w+\\)$`));
    const endpoints = (await sb.api('/api/v1/webhooks/endpoints')).body.data;
    const byUrl = Object.fromEntries(endpoints.map((e: { url: string; topics: string[] }) => [e.url, e.topics]));
    assert.deepEqual(byUrl[orders.url], ['order.*']);
    assert.equal(byUrl[rest.url].length, 31, 'the catch-all takes every topic but the two order ones');
    assert.ok(!byUrl[rest.url].some((t: string) => t.startsWith('order.')));

    const before = orders.received.length;
    await placeOrder(sb);
    await listen.waitForLine(/<-- {2}\[200\] POST .* \(route order\.\*\)$/);
    assert.equal(orders.received.length, before + 1);
    assert.equal(rest.received.length, 0, 'the catch-all does not get what an earlier route took');
  } finally {
    await listen.stop();
  }
});

test('listen keeps one signing secret per sandbox across runs; --new-secret replaces it', async () => {
  const sb = await createSandbox(engine.url);
  const run = async (...extra: string[]) => {
    const listen = new CliProcess(['listen', '--forward-to', orders.url, ...extra, ...as(sb)]);
    try {
      return await readySecret(listen);
    } finally {
      await listen.stop();
    }
  };
  const first = await run();
  assert.equal(await run(), first, 'the receiver keeps the secret it was configured with');
  const renewed = await run('--new-secret');
  assert.notEqual(renewed, first);
  assert.equal(await run(), renewed);

  // The kept secret really signs: a forwarded delivery verifies with it.
  const listen = new CliProcess(['listen', '--forward-to', orders.url, ...as(sb)]);
  try {
    await readySecret(listen);
    const before = orders.received.length;
    await placeOrder(sb);
    const [req] = (await orders.waitFor(before + 1)).slice(before);
    assert.ok(independentlyVerify(req.headers['x-service-signature'] as string, req.body, renewed));
  } finally {
    await listen.stop();
  }
});

test('listen --print-response shows each answer: status, headers, body excerpt and time', async () => {
  const sb = await createSandbox(engine.url);
  orders.behaviour = {
    kind: 'status',
    status: 422,
    body: '{"error":"missing order"}',
    headers: { 'x-handled-by': 'r1' },
  };
  const listen = new CliProcess(['listen', '--forward-to', orders.url, '--print-response', ...as(sb)]);
  try {
    await readySecret(listen);
    await placeOrder(sb);
    await listen.waitForLine(/^ {6}HTTP 422 in \d+ ms$/);
    await listen.waitForLine(/^ {6}x-handled-by: r1$/);
    await listen.waitForLine(/^ {6}\{"error":"missing order"\}$/);
  } finally {
    orders.behaviour = { kind: 'status', status: 200, body: 'ok' };
    await listen.stop();
  }
});

test('a route no topic is left for, or not PATTERN=URL, is a one-line error', async () => {
  const sb = await createSandbox(engine.url);
  assertOneLineFailure(
    await runCli(['listen', '--forward', `order.*=${orders.url}`, '--forward', `order.placed=${rest.url}`, ...as(sb)]),
    /^sandbay: --forward order\.placed=\S+ gets no topic: earlier routes take all of its topics$/,
  );
  assertOneLineFailure(
    await runCli(['listen', '--forward', orders.url, ...as(sb)]),
    /^sandbay: --forward takes PATTERN=URL/,
  );
  assertOneLineFailure(
    await runCli(['listen', '--forward', `refund.*=${orders.url}`, ...as(sb)]),
    /^sandbay: --forward refund\.\*=\S+: unknown topic refund\.\*/,
  );
  assert.equal((await sb.api('/api/v1/webhooks/endpoints')).body.data.length, 0, 'nothing was registered');
});
