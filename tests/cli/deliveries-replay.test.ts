// `sandbay deliveries replay` (issue 31): a filter on the sandbox clock, --dry-run lists, the job is followed;
// `sandbay replay` still replays fixture files.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli, runCliJson } from '../helpers/cli.ts';
import { Receiver } from '../helpers/receiver.ts';
import { advance, registerEndpoint } from '../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

test('deliveries replay --status dead --since/--until: --dry-run lists the range, then the job replays it', async () => {
  const sb = await createSandbox(engine.url);
  receiver.behaviour = { kind: 'status', status: 500 };
  const endpoint = await registerEndpoint(sb, receiver.url, ['*']);
  const old = await runCliJson(['trigger', 'order.placed', '--to', endpoint.id, ...as(sb)]);
  await advance(sb, 3 * 3600);
  const recent = await runCliJson(['trigger', 'order.placed', '--to', endpoint.id, ...as(sb)]);
  await runCliJson(['trigger', 'payment.captured', '--to', endpoint.id, ...as(sb)]);
  await advance(sb, 2 * 3600); // both recent ones dead, created 2 h ago; the old one 5 h ago

  const filter = ['--topic', 'order.*', '--status', 'dead', '--since', '3h', '--until', '1h'];
  const dry = await runCli(['deliveries', 'replay', ...filter, '--dry-run', ...as(sb)]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(
    dry.stdout,
    new RegExp(`^${recent.id}  order\\.placed  dead  ${endpoint.id}  \\S+Z\\n1 delivery would be replayed`),
  );
  assert.doesNotMatch(dry.stdout, new RegExp(old.id));

  receiver.behaviour = { kind: 'status', status: 200 };
  const before = receiver.received.length;
  const job = await runCliJson(['deliveries', 'replay', ...filter, ...as(sb)]);
  assert.deepEqual([job.state, job.total, job.succeeded], ['completed', 1, 1]);
  assert.equal(receiver.received.length - before, 1);
  assert.equal(receiver.received.at(-1)!.headers['x-service-delivery-id'], recent.id);

  assertOneLineFailure(await runCli(['deliveries', 'replay', '--since', 'yesterday', ...as(sb)]), /not a duration/);
  assertOneLineFailure(await runCli(['deliveries', 'replay', '--status', 'lost', ...as(sb)]), /validation_failed/);
  const list = await runCliJson(['deliveries', '--status', 'dead', '--topic', 'order.placed', ...as(sb)]);
  assert.deepEqual(
    list.data.map((d: { id: string }) => d.id),
    [old.id],
    "the list's own --status and --topic still work beside the subcommand",
  );
});
