import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// SPEC §5.5: an advance "first waits for attempts in flight" — also those the clock did not
// start: a manual retry, a replay, a DLQ replay. A hanging receiver keeps such an attempt in
// flight until the (shortened) attempt timeout.
const attemptTimeoutMs = 600;
const engine = useEngine({ attemptTimeoutMs });

const at = (iso: string) => Date.parse(iso);
/** When an attempt finished, in sandbox ms: retry timing counts from there (docs/decisions/retry-timing.md). */
const finished = (a: any) => at(a.startedAt) + a.durationMs;

/** A sandbox whose one delivery failed its first attempt at `rx` (which answers 500). */
async function failedOnce(): Promise<{ sb: TestSandbox; rx: Receiver; id: string }> {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  rx.behaviour = { kind: 'status', status: 500 };
  await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  await rx.waitFor(1);
  const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, summary.id, (d) => d.attemptCount === 1);
  return { sb, rx, id: summary.id };
}

test('an advance issued while a manual retry is in flight returns only after that attempt and its follow-ups ran', async () => {
  const { sb, rx, id } = await failedOnce();
  try {
    rx.behaviour = { kind: 'hang' };
    const retry = sb.api(`/api/v1/webhooks/deliveries/${id}/retry`, { method: 'POST' });
    await rx.waitFor(2); // the manual attempt has reached the receiver and waits for its answer
    rx.behaviour = { kind: 'status', status: 500 };
    const advanced = await advance(sb, 3600);

    const d = await delivery(sb, id);
    assert.deepEqual(
      d.attempts.map((a: any) => a.trigger),
      ['initial', 'manual', 'retry', 'retry'],
      'the manual attempt was recorded before the advance returned',
    );
    const [, manual, third, fourth] = d.attempts;
    assert.match(manual.error, /timeout|timed out/i);
    // The manual attempt took slot 2; slots 3 and 4 follow 2 min and 10 min after each failure, run as of their due
    // time.
    assert.equal(at(third.startedAt), finished(manual) + 120_000);
    assert.equal(at(fourth.startedAt), finished(third) + 600_000);
    assert.equal(d.status, 'pending');
    assert.equal(at(d.nextAttemptAt), finished(fourth) + 3_600_000, 'slot 5, 1 h later, is beyond this advance');
    assert.ok(at(advanced.now) >= at(manual.startedAt) + 3_600_000, 'the clock moved the whole hour past the retry');
    assert.equal(rx.received.length, 4);

    const answered = await retry;
    assert.equal(answered.status, 200);
    assert.equal(answered.body.attempts[1].trigger, 'manual');
  } finally {
    await rx.close();
  }
});

test('an advance issued while a DLQ replay is in flight waits for the replay to be recorded', async () => {
  const { sb, rx, id } = await failedOnce();
  try {
    await advance(sb, 7200);
    assert.equal((await delivery(sb, id)).status, 'dead');
    rx.behaviour = { kind: 'hang' };
    const replay = sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
    await rx.waitFor(6);
    await advance(sb, 60);
    const d = await delivery(sb, id);
    assert.equal(d.attempts.length, 6, 'the replay was recorded before the advance returned');
    assert.deepEqual([d.attempts[5].trigger, d.status, d.nextAttemptAt], ['replay', 'dead', null]);
    const job = (await replay).body; // the replay-all job answered at once (202); its one replay is done
    assert.equal(job.total, 1);
    let progress = job;
    for (let i = 0; i < 100 && progress.state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      progress = (await sb.api(`/api/v1/webhooks/dlq-replays/${job.id}`)).body;
    }
    assert.deepEqual([progress.state, progress.done, progress.failed], ['completed', 1, 1]);
  } finally {
    await rx.close();
  }
});
