import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../../../src/server/start.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { useReceivers } from '../../helpers/receiver.ts';
import { advance, registerEndpoint, waitForReplayJob } from '../../helpers/webhooks.ts';

// Hung attempts give up after 2 s here (10 s in production), so a cancelled job drains quickly.
const engine = useEngine({ attemptTimeoutMs: 2000 });
const receiver = useReceivers();

/** A sandbox whose endpoint failed `count` test webhooks of `topic` five times each: all in the DLQ. */
async function deadLetters(count: number, topics = ['order.placed'], url = engine.url) {
  const sb = await createSandbox(url);
  const rx = await receiver(500);
  const endpoint = await registerEndpoint(sb, rx.url, ['*']);
  for (let i = 0; i < count; i++) {
    const res = await sb.api('/api/v1/webhooks/test', {
      body: { topic: topics[i % topics.length], endpoint: endpoint.id },
    });
    assert.equal(res.status, 202);
  }
  await rx.waitFor(count);
  await advance(sb, 7200);
  const dead = await sb.api('/api/v1/webhooks/dlq?limit=100');
  assert.equal(dead.body.data.length, count);
  return { sb, rx, endpoint };
}

test('replaying the DLQ answers 202 at once with a job whose progress ends completed', async () => {
  const { sb, rx, endpoint } = await deadLetters(6, ['order.placed', 'payment.captured']);
  rx.behaviour = { kind: 'status', status: 200 };
  const started = await sb.api('/api/v1/webhooks/dlq/replay', {
    body: { topic: 'payment.captured', endpointId: endpoint.id },
  });
  assert.equal(started.status, 202);
  assert.match(started.body.id, /^dlr_/);
  assert.equal(started.headers.get('location'), `/api/v1/webhooks/dlq-replays/${started.body.id}`);
  assert.deepEqual(
    {
      state: started.body.state,
      total: started.body.total,
      done: started.body.done,
      topic: started.body.topic,
      endpointId: started.body.endpointId,
    },
    { state: 'running', total: 3, done: 0, topic: 'payment.captured', endpointId: endpoint.id },
  );
  const finished = await waitForReplayJob(sb, started.body.id, (j) => j.state !== 'running');
  assert.deepEqual(
    [finished.state, finished.done, finished.succeeded, finished.failed, finished.skipped],
    ['completed', 3, 3, 0, 0],
  );
  assert.ok(finished.finishedAt);
  const rest = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
  assert.equal(rest.body.total, 3);
  await waitForReplayJob(sb, rest.body.id, (j) => j.state === 'completed' && j.succeeded === 3);
  assert.deepEqual((await sb.api('/api/v1/webhooks/dlq')).body.data, []);
  const list = await sb.api('/api/v1/webhooks/dlq-replays');
  assert.deepEqual(
    list.body.data.map((j: { id: string }) => j.id),
    [rest.body.id, started.body.id],
    'newest first',
  );
  const empty = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
  assert.equal(empty.body.total, 0);
  assert.equal((await waitForReplayJob(sb, empty.body.id, (j) => j.state !== 'running')).state, 'completed');
  const firstPage = await sb.api('/api/v1/webhooks/dlq-replays?limit=2');
  const secondPage = await sb.api(
    `/api/v1/webhooks/dlq-replays?limit=2&cursor=${encodeURIComponent(firstPage.body.nextCursor)}`,
  );
  assert.deepEqual(
    [...firstPage.body.data, ...secondPage.body.data].map((j: { id: string }) => j.id),
    [empty.body.id, rest.body.id, started.body.id],
  );
  assert.equal(secondPage.body.nextCursor, null);
  problem(await sb.api('/api/v1/webhooks/dlq/replay', { body: { topic: 'order.plced' } }), 422, 'unknown_topic');
});

test('replaying the DLQ with an Idempotency-Key: the job runs after its request commits, and the key gives the same job', async () => {
  // An empty DLQ: the job has nothing to do and finishes at once, which must still come after its row is committed.
  const empty = await createSandbox(engine.url);
  const none = await empty.api('/api/v1/webhooks/dlq/replay', {
    method: 'POST',
    headers: { 'idempotency-key': 'empty-dlq' },
  });
  assert.equal(none.status, 202);
  assert.equal((await waitForReplayJob(empty, none.body.id, (j) => j.state !== 'running')).state, 'completed');

  const { sb, rx } = await deadLetters(3);
  rx.behaviour = { kind: 'status', status: 200 };
  const keyed = { headers: { 'idempotency-key': `dlq-${sb.id}` } };
  const started = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST', ...keyed });
  assert.equal(started.status, 202);
  const finished = await waitForReplayJob(sb, started.body.id, (j) => j.state !== 'running');
  assert.deepEqual([finished.state, finished.succeeded, finished.failed], ['completed', 3, 0]);
  const again = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST', ...keyed });
  assert.equal(again.body.id, started.body.id, 'the stored response');
  assert.equal(rx.received.length, 3 * 5 + 3, 'each dead letter replayed once');
});

test('a hung receiver: ten replays at a time, one job per sandbox, and cancel stops the rest', async () => {
  const { sb, rx } = await deadLetters(25);
  rx.behaviour = { kind: 'hang' };
  const before = rx.received.length;
  const started = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
  assert.equal(started.status, 202, 'answered while every attempt hangs');
  await rx.waitFor(before + 10);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(rx.received.length - before, 10, 'bounded: ten in flight, the other fifteen wait');
  const running = await sb.api(`/api/v1/webhooks/dlq-replays/${started.body.id}`);
  assert.deepEqual([running.body.state, running.body.total, running.body.done], ['running', 25, 0]);

  const second = problem(await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' }), 409, 'replay_in_progress');
  assert.equal(second.jobId, started.body.id);

  const cancelled = await sb.api(`/api/v1/webhooks/dlq-replays/${started.body.id}/cancel`, { method: 'POST' });
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.state, 'cancelled');
  // The ten in flight time out (2 s here) and are counted; none of the fifteen others starts.
  const drained = await waitForReplayJob(sb, started.body.id, (j) => j.done === 10);
  assert.deepEqual([drained.state, drained.failed], ['cancelled', 10]);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(rx.received.length - before, 10);
  assert.equal(
    (await sb.api(`/api/v1/webhooks/dlq-replays/${started.body.id}/cancel`, { method: 'POST' })).body.state,
    'cancelled',
    'cancelling twice is fine',
  );

  rx.behaviour = { kind: 'status', status: 200 };
  const again = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
  assert.equal(again.status, 202, 'a cancelled job no longer blocks a new one');
  assert.equal(again.body.total, 25, 'what was not replayed is still dead');
  await waitForReplayJob(sb, again.body.id, (j) => j.state === 'completed' && j.succeeded === 25);
  const late = problem(
    await sb.api(`/api/v1/webhooks/dlq-replays/${again.body.id}/cancel`, { method: 'POST' }),
    409,
    'replay_not_running',
  );
  assert.equal(late.currentState, 'completed');
});

test("a job whose engine went silent reads as interrupted and does not block the next one; jobs are the sandbox's own", async () => {
  const { sb, rx } = await deadLetters(2);
  // What an engine killed mid-job leaves behind: a running row nobody has written for a minute.
  await engine.running.services.db.query(
    `insert into dlq_replay_jobs (tenant_id, id, state, total, succeeded, created_at, updated_at)
     values ($1, 'dlr_crashed', 'running', 2, 1, now() - interval '2 minutes', now() - interval '1 minute')`,
    [sb.id],
  );
  const orphan = await sb.api('/api/v1/webhooks/dlq-replays/dlr_crashed');
  assert.deepEqual([orphan.body.state, orphan.body.done], ['interrupted', 1]);
  assert.equal(orphan.body.finishedAt, orphan.body.updatedAt, 'it stopped when it last wrote');
  problem(
    await sb.api('/api/v1/webhooks/dlq-replays/dlr_crashed/cancel', { method: 'POST' }),
    409,
    'replay_not_running',
  );
  rx.behaviour = { kind: 'status', status: 200 };
  const next = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
  assert.equal(next.status, 202);
  await waitForReplayJob(sb, next.body.id, (j) => j.state === 'completed');

  const other = await createSandbox(engine.url);
  problem(await other.api(`/api/v1/webhooks/dlq-replays/${next.body.id}`), 404, 'not_found');
  problem(await other.api(`/api/v1/webhooks/dlq-replays/${next.body.id}/cancel`, { method: 'POST' }), 404, 'not_found');
  assert.deepEqual((await other.api('/api/v1/webhooks/dlq-replays')).body.data, []);
  assert.equal((await sb.api('/api/v1/sandbox/reset', { method: 'POST' })).status, 200);
  assert.deepEqual(
    (await sb.api('/api/v1/webhooks/dlq-replays')).body.data,
    [],
    'a reset clears them with the delivery log',
  );
});

test('an engine shut down mid-job leaves it interrupted, and the next engine on that data dir says so', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-dlq-replay-'));
  try {
    let running = await startSandbox({ dataDir, port: 0, logRequests: false, attemptTimeoutMs: 2000 });
    const { sb, rx } = await deadLetters(3, ['order.placed'], running.url);
    rx.behaviour = { kind: 'hang' };
    const started = await sb.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
    await rx.waitFor(6);
    await running.close();
    running = await startSandbox({ dataDir, port: 0, logRequests: false });
    try {
      const res = await fetch(`${running.url}/api/v1/webhooks/dlq-replays/${started.body.id}`, {
        headers: { authorization: `Bearer ${sb.token}` },
      });
      const job: any = await res.json();
      assert.deepEqual([job.state, job.total], ['interrupted', 3]);
      assert.ok(job.finishedAt);
    } finally {
      await running.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('replaying one delivery from the DLQ: dead ones only; any other is 409 delivery_not_dead saying how to resend it', async () => {
  const { sb, rx } = await deadLetters(1);
  const [dead] = (await sb.api('/api/v1/webhooks/dlq')).body.data;
  rx.behaviour = { kind: 'status', status: 200 };
  const replayed = await sb.api(`/api/v1/webhooks/dlq/${dead.id}/replay`, { method: 'POST' });
  assert.equal(replayed.status, 200);
  assert.equal(replayed.body.status, 'succeeded');
  assert.equal(replayed.body.attempts.at(-1).trigger, 'replay');
  const again = problem(
    await sb.api(`/api/v1/webhooks/dlq/${dead.id}/replay`, { method: 'POST' }),
    409,
    'delivery_not_dead',
  );
  assert.equal(again.currentStatus, 'succeeded');
  assert.match(
    again.detail,
    new RegExp(
      `is succeeded, not in the DLQ\\. To attempt it anyway: POST /api/v1/webhooks/deliveries/${dead.id}/replay \\(sandbay resend ${dead.id}\\)\\.$`,
    ),
  );
  assert.equal((await sb.api(`/api/v1/webhooks/deliveries/${dead.id}`)).body.attempts.length, 6, 'nothing was sent');
  problem(await sb.api('/api/v1/webhooks/dlq/dlv_missing/replay', { method: 'POST' }), 404, 'not_found');
});
