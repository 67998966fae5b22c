// The pool cannot be exhausted by requests: no request holds a connection across receiver I/O or while
// it waits for another session's lock. Clock advances (which wait on receivers) ten at once on ten
// sandboxes, plus two on one sandbox, and then a rush of lists, streams and advances together, on one
// engine with its default pool of 10: no 5xx; the second advance of one sandbox waits its turn or is 409.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, type TestSandbox } from '../helpers/engine.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';
import { assertAlive, eventually, timedCall, useFaultTeam } from './harness.ts';

// Every attempt fails after 300 ms: an advance of 2 h runs four retries, each a wait on the receiver.
const team = useFaultTeam(1);
const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

/** A sandbox whose one delivery failed its first attempt (four retries to run). */
async function failingSandbox(): Promise<TestSandbox> {
  const url = team.engines[0].url;
  const sb = await createSandbox(url);
  await registerEndpoint(sb, team.receiver.url, ['order.placed']);
  assert.equal((await timedCall(url, '/api/v1/orders', sb.token, 'POST', order)).status, 201);
  return sb;
}

const advance = (sb: TestSandbox) =>
  timedCall(team.engines[0].url, '/api/v1/sandbox/clock/advance', sb.token, 'POST', { seconds: 7_200 });

test('10 advances on 10 sandboxes and 2 on one, at once: no 5xx; every cycle runs to dead; the pair takes turns or one is 409', async (t) => {
  await team.start(300, () => 500);
  const sandboxes = await Promise.all(Array.from({ length: 11 }, failingSandbox));
  await eventually('the first attempts', 20_000, async () => (team.receiver.total >= 11 ? true : undefined));
  const started = Date.now();
  const answers = await Promise.all([
    ...sandboxes.slice(0, 10).map(advance),
    advance(sandboxes[10]),
    advance(sandboxes[10]),
  ]);
  t.diagnostic(`statuses ${answers.map((a) => a.status).join(' ')} in ${Date.now() - started} ms`);
  assert.deepEqual(
    answers.slice(0, 10).map((a) => a.status),
    Array(10).fill(200),
  );
  const pair = answers
    .slice(10)
    .map((a) => a.status)
    .sort();
  assert.ok(JSON.stringify(pair) === '[200,200]' || JSON.stringify(pair) === '[200,409]', `the pair answered ${pair}`);
  if (pair[1] === 409) assert.equal(answers.slice(10).find((a) => a.status === 409)!.body.code, 'advance_in_progress');
  for (const sb of sandboxes) {
    const [d] = (await timedCall(team.engines[0].url, '/api/v1/webhooks/deliveries', sb.token)).body.data;
    assert.equal(d.status, 'dead', 'the advance ran all five attempts');
  }
  assertAlive(team.engines);
});

test('60 list requests, 10 open streams and 5 advances at once on one engine: no 5xx', async (t) => {
  const url = team.engines[0].url;
  const sandboxes = await Promise.all(Array.from({ length: 5 }, failingSandbox));
  await eventually('the first attempts', 20_000, async () => (team.receiver.total >= 11 * 5 + 5 ? true : undefined));
  const streams = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const controller = new AbortController();
      const res = await fetch(`${url}/api/v1/events/stream`, {
        headers: { authorization: `Bearer ${sandboxes[i % 5].token}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      return { status: res.status, close: () => controller.abort() };
    }),
  );
  try {
    const lists = ['/api/v1/webhooks/deliveries', '/api/v1/events', '/api/v1/orders?limit=50'];
    const answers = await Promise.all([
      ...sandboxes.map(advance),
      ...Array.from({ length: 60 }, (_, i) => timedCall(url, lists[i % 3], sandboxes[i % 5].token)),
    ]);
    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    t.diagnostic(`streams ${streams.map((s) => s.status).join(' ')}; answers ${JSON.stringify(statuses)}`);
    assert.deepEqual(
      streams.map((s) => s.status),
      Array(10).fill(200),
    );
    assert.deepEqual(statuses, { 200: 65 });
  } finally {
    for (const s of streams) s.close();
  }
  assertAlive(team.engines);
});
