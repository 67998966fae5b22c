import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver, type Behaviour } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// A short attempt timeout so the hanging receiver fails in 500 ms instead of SPEC's 10 s.
const engine = useEngine({ attemptTimeoutMs: 500 });

async function firstAttemptAgainst(
  behaviour: Behaviour,
): Promise<{ sb: TestSandbox; rx: Receiver; attempt: any; d: any }> {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  rx.behaviour = behaviour;
  await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const d = await waitForDelivery(sb, summary.id, (x) => x.attemptCount === 1);
  return { sb, rx, attempt: d.attempts[0], d };
}

for (const status of [302, 307]) {
  test(`a ${status} is recorded as a failed attempt and not followed`, async () => {
    const target = await new Receiver().start();
    const { rx, attempt, d } = await firstAttemptAgainst({ kind: 'status', status, headers: { location: target.url } });
    try {
      assert.equal(d.status, 'pending');
      assert.equal(attempt.responseStatus, status);
      assert.match(attempt.error, /redirect not followed/);
      assert.equal(attempt.responseHeaders.location, target.url);
      assert.equal(target.received.length, 0, 'the redirect target never saw a request');
      assert.equal(rx.received.length, 1);
    } finally {
      await rx.close();
      await target.close();
    }
  });
}

test('a receiver that hangs past the timeout fails the attempt cleanly', async () => {
  const { rx, attempt, d } = await firstAttemptAgainst({ kind: 'hang' });
  try {
    assert.equal(d.status, 'pending');
    assert.equal(attempt.responseStatus, null);
    assert.match(attempt.error, /^timeout/);
    assert.ok(attempt.durationMs >= 450 && attempt.durationMs < 3000, `took ${attempt.durationMs} ms`);
  } finally {
    await rx.close();
  }
});

test('a receiver that resets the connection fails the attempt', async () => {
  const { rx, attempt } = await firstAttemptAgainst({ kind: 'reset' });
  try {
    assert.equal(attempt.responseStatus, null);
    assert.match(attempt.error, /reset|socket|closed/i);
  } finally {
    await rx.close();
  }
});

test('a huge streamed response is read up to 4 KiB, then the connection is dropped', async () => {
  const { rx, attempt, d } = await firstAttemptAgainst({ kind: 'flood', bytes: 512 * 1024 * 1024 });
  try {
    assert.equal(d.status, 'succeeded', 'a 200 is a success whatever follows');
    assert.equal(attempt.responseStatus, 200);
    assert.equal(Buffer.byteLength(attempt.responseBody), 4096);
    assert.ok(
      rx.floodBytesSent < 64 * 1024 * 1024,
      `the receiver could only push ${rx.floodBytesSent} bytes before we hung up`,
    );
  } finally {
    await rx.close();
  }
});

test('an unreachable receiver fails with connection refused', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  const url = rx.url;
  await rx.close();
  await registerEndpoint(sb, url, ['order.placed']);
  await placeOrder(sb);
  const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const d = await waitForDelivery(sb, summary.id, (x) => x.attemptCount === 1);
  assert.equal(d.attempts[0].error, 'connection refused');
});

test('a stalled receiver never holds up deliveries to other endpoints', async () => {
  const sb = await createSandbox(engine.url);
  const slow = await new Receiver().start();
  const fast = await new Receiver().start();
  slow.behaviour = { kind: 'hang' };
  try {
    await registerEndpoint(sb, slow.url, ['order.placed']);
    await registerEndpoint(sb, fast.url, ['order.placed']);
    for (let i = 0; i < 12; i++) await placeOrder(sb);
    await fast.waitFor(12, 400); // well inside the 500 ms the hanging attempts take
    assert.equal(fast.received.length, 12);
  } finally {
    await slow.close();
    await fast.close();
  }
});

// Its own engine with a long attempt timeout, so no hanging attempt frees its slot early
// however slowly a loaded machine places the orders.
const patient = useEngine({ attemptTimeoutMs: 8000 });

test('at most 10 attempts per endpoint are in flight at once', async () => {
  const sb = await createSandbox(patient.url);
  const rx = await new Receiver().start();
  rx.behaviour = { kind: 'hang' };
  try {
    await registerEndpoint(sb, rx.url, ['order.placed']);
    for (let i = 0; i < 15; i++) await placeOrder(sb);
    await rx.waitFor(10);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.received.length, 10, 'the other 5 wait for a slot');
    rx.behaviour = { kind: 'status', status: 200 };
    await rx.waitFor(15, 20_000); // the hung ones time out, and the waiting 5 take their slots
  } finally {
    await rx.close();
  }
});
