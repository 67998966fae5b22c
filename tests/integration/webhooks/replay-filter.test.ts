// Replay by filter (issue 31): the DLQ replay job generalised to statuses (failed = pending after a failed
// attempt), a topic pattern, an endpoint and a range of sandbox time; a dry run lists exactly what the
// job then replays, and cancel stops it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { useReceivers } from '../../helpers/receiver.ts';
import { advance, delivery, registerEndpoint, waitForDelivery, waitForReplayJob } from '../../helpers/webhooks.ts';

// Hung attempts give up after 2 s here (10 s in production), so a cancelled job drains quickly.
const engine = useEngine({ attemptTimeoutMs: 2000 });
const receiver = useReceivers();

async function send(sb: TestSandbox, topic: string, endpoint: string): Promise<string> {
  const res = await sb.api('/api/v1/webhooks/test', { body: { topic, endpoint } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await waitForDelivery(sb, res.body.deliveryId, (d) => d.attemptCount === 1);
  return res.body.deliveryId;
}

const replay = (sb: TestSandbox, body: Record<string, unknown>) =>
  sb.api('/api/v1/webhooks/deliveries/replay', { body });
const idsOf = (preview: any) => preview.data.map((d: any) => d.id);

test('a filter selects exactly the deliveries it names across a range of sandbox time; the job replays those alone', async () => {
  const sb = await createSandbox(engine.url);
  const failing = await receiver(500);
  const ok = await receiver(200);
  const a = await registerEndpoint(sb, failing.url, ['*']);
  const b = await registerEndpoint(sb, ok.url, ['*']);
  const deadOrder = await send(sb, 'order.placed', a.id); // created at 0 h
  const deadProduct = await send(sb, 'product.created', a.id);
  await advance(sb, 3 * 3600); // both dead now
  const failedOrder = await send(sb, 'order.placed', a.id); // created at 3 h, pending after a failure
  const succeeded = await send(sb, 'order.cancelled', b.id);
  await advance(sb, 3600); // four attempts of failedOrder by now, the fifth at 4 h 12 min 30 s
  const lateOrder = await send(sb, 'order.placed', a.id); // created at 4 h
  assert.equal((await delivery(sb, failedOrder)).status, 'pending');
  assert.equal((await delivery(sb, deadOrder)).status, 'dead');

  const clock = (await sb.api('/api/v1/sandbox/clock')).body;
  const ago = (seconds: number) => new Date(Date.parse(clock.now) - seconds * 1000).toISOString();
  const everyOrder = await replay(sb, { statuses: ['failed', 'dead'], topic: 'order.*', dryRun: true });
  assert.equal(everyOrder.status, 200, JSON.stringify(everyOrder.body));
  assert.deepEqual(idsOf(everyOrder.body), [deadOrder, failedOrder, lateOrder]);
  assert.deepEqual(idsOf((await replay(sb, { statuses: ['dead'], dryRun: true })).body), [deadOrder, deadProduct]);
  assert.deepEqual(
    idsOf((await replay(sb, { statuses: ['succeeded', 'dead'], endpointId: b.id, dryRun: true })).body),
    [succeeded],
  );
  const narrow = { statuses: ['failed', 'dead'], topic: 'order.*', since: ago(2 * 3600), until: ago(30 * 60) };
  const preview = (await replay(sb, { ...narrow, dryRun: true })).body;
  assert.deepEqual(idsOf(preview), [failedOrder], 'since 2 h ago (3 h), until 30 min ago (4 h 30 min − 30 min)');
  assert.deepEqual(preview.filter.statuses, ['failed', 'dead']);

  failing.behaviour = { kind: 'status', status: 200 };
  const before = failing.received.length;
  const started = await replay(sb, narrow);
  assert.equal(started.status, 202, JSON.stringify(started.body));
  assert.equal(started.body.total, 1);
  assert.equal(started.body.filter.since, narrow.since);
  const job = await waitForReplayJob(sb, started.body.id, (j) => j.state === 'completed');
  assert.deepEqual([job.succeeded, job.failed, job.skipped], [1, 0, 0]);
  assert.equal(failing.received.length - before, 1, 'only the delivery the filter named');
  const replayed = await delivery(sb, failedOrder);
  assert.deepEqual([replayed.status, replayed.attempts.at(-1).trigger], ['succeeded', 'manual']);
  assert.equal((await delivery(sb, deadOrder)).attempts.length, 5, 'outside the range: untouched');
  assert.equal((await delivery(sb, lateOrder)).status, 'pending');

  problem(await replay(sb, { statuses: ['dead'], topic: 'order.nope' }), 422, 'unknown_topic');
  problem(await replay(sb, { statuses: ['lost'] }), 422, 'validation_failed');
  problem(await replay(sb, { statuses: [] }), 422, 'validation_failed');
  problem(await replay(sb, { statuses: ['dead'], since: '2 hours ago' }), 422, 'validation_failed');
});

test('selected ids with a hung receiver: ten at a time, and cancel stops the rest', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await receiver(200);
  const endpoint = await registerEndpoint(sb, rx.url, ['*']);
  const ids: string[] = [];
  for (let i = 0; i < 14; i++) ids.push(await send(sb, 'order.placed', endpoint.id));
  rx.behaviour = { kind: 'hang' };
  const before = rx.received.length;
  const started = await replay(sb, { statuses: ['succeeded'], ids: ids.slice(0, 12) });
  assert.equal(started.status, 202);
  assert.equal(started.body.total, 12);
  await rx.waitFor(before + 10);
  problem(await replay(sb, { statuses: ['dead'] }), 409, 'replay_in_progress');
  const cancelled = await sb.api(`/api/v1/webhooks/dlq-replays/${started.body.id}/cancel`, { method: 'POST' });
  assert.equal(cancelled.body.state, 'cancelled');
  // The ten in flight time out and are counted; none of the other two starts.
  const drained = await waitForReplayJob(sb, started.body.id, (j) => j.done === 10);
  assert.deepEqual([drained.state, drained.failed, drained.total], ['cancelled', 10, 12]);
  assert.equal(rx.received.length - before, 10);
  const replayedIds = new Set(rx.received.slice(before).map((r) => String(r.headers['x-service-delivery-id'])));
  assert.ok(
    [...replayedIds].every((id) => ids.slice(0, 12).includes(id)),
    'only the selected ones',
  );
});
