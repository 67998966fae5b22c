import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, assertOneLineFailures, CliProcess, runCli, runCliJson } from '../helpers/cli.ts';
import { Receiver } from '../helpers/receiver.ts';
import { delivery, placeOrder } from '../helpers/webhooks.ts';

const receiver = new Receiver();
before(() => receiver.start());
// Closed before the engine (after hooks run in the order they are declared): the requests it holds hung
// end there, or the engine's close would wait out their attempts, two minutes each.
after(() => receiver.close());
// Hung attempts outlast every step of a test (10 s in production would race a slow CI box).
const engine = useEngine({ attemptTimeoutMs: 120_000 });

async function waitUntil(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

/** A delivery to the receiver that fails all five attempts (the CLI advances the clock 2 h). */
async function deadDelivery(sb: TestSandbox, topic = 'order.placed'): Promise<string> {
  receiver.behaviour = { kind: 'status', status: 500, body: 'nope' };
  const { id } = await runCliJson(['trigger', topic, '--to', receiver.url, ...as(sb)]);
  const advanced = await runCli(['clock', 'advance', '2h', ...as(sb)]);
  assert.equal(advanced.code, 0, advanced.stderr);
  assert.match(
    advanced.stdout,
    /^Advanced 2h: sandbox now \S+Z \(\d+h(\d+m)? ahead of the real clock\); \d+ due jobs? ran\n$/,
  );
  assert.equal((await delivery(sb, id)).status, 'dead');
  return id;
}

test('dlq list shows dead deliveries; dlq replay <id> sends one again', async () => {
  const sb = await createSandbox(engine.url);
  const id = await deadDelivery(sb);
  const list = await runCli(['dlq', 'list', ...as(sb)]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(
    list.stdout.split('\n')[1],
    new RegExp(`^dead\\s+order\\.placed\\s+${id}\\s+5\\s+500\\s+—\\s+${receiver.url}$`),
  );
  assert.deepEqual(
    (await runCliJson(['dlq', 'list', ...as(sb)])).data.map((d: any) => d.id),
    [id],
  );

  receiver.behaviour = { kind: 'status', status: 200 };
  const replayed = await runCli(['dlq', 'replay', id, ...as(sb)]);
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /\[200\] \d+ ms, attempt 6 \(replay\)\s+· succeeded/);
  assert.equal((await runCli(['dlq', 'list', ...as(sb)])).stdout, 'No deliveries.\n');
  assertOneLineFailure(
    await runCli(['dlq', 'replay', id, ...as(sb)]),
    new RegExp(
      `^sandbay: Delivery ${id} is succeeded, not in the DLQ\\. \`sandbay resend ${id}\` attempts it anyway\\. \\(delivery_not_dead\\)$`,
    ),
  );
  assert.equal((await delivery(sb, id)).attempts.length, 6, 'and nothing was sent');
});

test('dlq replay --all replays every dead delivery, narrowed by --topic', async () => {
  const sb = await createSandbox(engine.url);
  const placed = await deadDelivery(sb, 'order.placed');
  const cancelled = await deadDelivery(sb, 'order.cancelled');
  receiver.behaviour = { kind: 'status', status: 200 };
  const byTopic = await runCliJson(['dlq', 'replay', '--all', '--topic', 'order.cancelled', ...as(sb)]);
  assert.deepEqual(
    [byTopic.state, byTopic.topic, byTopic.total, byTopic.succeeded, byTopic.failed],
    ['completed', 'order.cancelled', 1, 1, 0],
  );
  assert.equal((await delivery(sb, cancelled)).status, 'succeeded');
  const all = await runCli(['dlq', 'replay', '--all', ...as(sb)]);
  assert.equal(all.stdout, 'Replayed 1: 1 succeeded, 0 failed\n');
  assert.match(all.stderr, /^Replaying 0\/1 — 0 succeeded, 0 failed\n/, 'progress goes to stderr');
  assert.equal((await delivery(sb, placed)).status, 'succeeded');
});

test('dlq replay --all --no-wait returns the job; dlq status follows it; Ctrl-C while following cancels it', async () => {
  const sb = await createSandbox(engine.url);
  await deadDelivery(sb);
  await deadDelivery(sb, 'order.cancelled');
  receiver.behaviour = { kind: 'hang' };
  const started = await runCli(['dlq', 'replay', '--all', '--no-wait', ...as(sb)]);
  assert.equal(started.code, 0, started.stderr);
  const jobId = /^Started (dlr_\w+): replaying 2 dead deliveries\. Follow it: sandbay dlq status dlr_\w+\n$/.exec(
    started.stdout,
  )?.[1];
  assert.ok(jobId, started.stdout);
  assert.match(
    (await runCli(['dlq', 'status', ...as(sb)])).stdout,
    new RegExp(`^${jobId} running: 0 of 2 replayed — 0 succeeded, 0 failed\n$`),
  );
  assert.equal((await runCliJson(['dlq', 'status', jobId, ...as(sb)])).state, 'running');
  assertOneLineFailure(
    await runCli(['dlq', 'replay', '--all', ...as(sb)]),
    new RegExp(`already running \\(${jobId}\\).*\\(replay_in_progress\\)$`),
  );
  const cancelled = await runCli(['dlq', 'cancel', jobId, ...as(sb)]);
  assert.match(cancelled.stdout, new RegExp(`^${jobId} cancelled after 0 of 2`), cancelled.stderr);
  assertOneLineFailure(await runCli(['dlq', 'cancel', 'dlr_missing', ...as(sb)]), /not_found/);

  // Another sandbox: this one's deliveries are still in flight (hung), so a new job would skip them.
  const other = await createSandbox(engine.url);
  await deadDelivery(other);
  await deadDelivery(other, 'order.cancelled');
  receiver.behaviour = { kind: 'hang' };
  const following = new CliProcess(['dlq', 'replay', '--all', ...as(other)]);
  await waitUntil(() => /^Replaying 0\/2/.test(following.stderr));
  const stopped = await following.stop('SIGINT');
  assert.equal(stopped.code, 1);
  assert.match(stopped.stderr, /Cancelling dlr_\w+…\nsandbay: dlr_\w+ cancelled after \d of 2: /);
  const [latest] = (await other.api('/api/v1/webhooks/dlq-replays?limit=1')).body.data;
  assert.equal(latest.state, 'cancelled');
  receiver.behaviour = { kind: 'status', status: 200 };
});

test('dlq replay needs exactly one of an id and --all', async () => {
  const sb = await createSandbox(engine.url);
  await assertOneLineFailures([
    [['dlq', 'replay', ...as(sb)], /give a delivery id to replay, or --all/],
    [['dlq', 'replay', 'dlv_x', '--all', ...as(sb)], /not both/],
    [['dlq', 'replay', 'dlv_missing', ...as(sb)], /not_found/],
  ]);
});

test('clock advance reads 90s, 1h30m and 1d; clock show prints the offset', async () => {
  const sb = await createSandbox(engine.url);
  assert.equal((await runCliJson(['clock', 'advance', '90s', ...as(sb)])).offsetSeconds, 90);
  assert.equal((await runCliJson(['clock', 'advance', '1h30m', ...as(sb)])).offsetSeconds, 90 + 5400);
  assert.equal((await runCliJson(['clock', 'advance', '1d', ...as(sb)])).offsetSeconds, 90 + 5400 + 86_400);
  const shown = await runCli(['clock', 'show', ...as(sb)]);
  assert.match(shown.stdout, /^sandbox now \S+Z \(1d1h ahead of the real clock\)\n$/);
  await assertOneLineFailures([
    [['clock', 'advance', '2x', ...as(sb)], /not a duration: 2x/],
    [['clock', 'advance', '0s', ...as(sb)], /more than zero/],
  ]);
});

test('reset restores the seed and clears the delivery log; reset --all revokes tokens and prints a new one', async () => {
  const sb = await createSandbox(engine.url);
  await placeOrder(sb);
  await runCliJson(['trigger', 'order.placed', '--to', receiver.url, '--no-wait', ...as(sb)]);
  const reset = await runCli(['reset', ...as(sb)]);
  assert.equal(reset.code, 0, reset.stderr);
  assert.match(reset.stdout, /^Reset in \d+ ms: .*\b200 orders\b.*\n$/);
  assert.deepEqual((await runCliJson(['deliveries', ...as(sb)])).data, []);

  const all = await runCli(['reset', '--all', ...as(sb)]);
  assert.equal(all.code, 0, all.stderr);
  const fresh = /New access token: (\S+)\n$/.exec(all.stdout)?.[1];
  assert.ok(fresh, all.stdout);
  assertOneLineFailure(await runCli(['deliveries', ...as(sb)]), /invalid_token/);
  assert.equal((await runCli(['deliveries', '--url', engine.url, '--token', fresh])).code, 0);
});
