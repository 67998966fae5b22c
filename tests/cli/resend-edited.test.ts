// `sandbay resend <id> --override/--add/--remove/--data/--new/--keep-id` (issue 31): a new delivery made
// from the original, its data changed with trigger's grammar and checked against the topic's schema.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli, runCliJson } from '../helpers/cli.ts';
import { Receiver } from '../helpers/receiver.ts';
import { delivery, registerEndpoint } from '../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());
const dir = mkdtempSync(join(tmpdir(), 'sandbay-resend-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];
const sentWithId = (id: string) => receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id);

test('resend --override, --add, --remove and --data @file: a new delivery with the data changed, the original untouched', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/edited`, ['order.placed']);
  const original = await runCliJson(['trigger', 'order.placed', '--to', endpoint.id, ...as(sb)]);
  const file = join(dir, 'data.json');
  writeFileSync(file, JSON.stringify({ customerId: 'cus_0002', note: 'from a file' }));

  const resent = await runCliJson([
    'resend',
    original.id,
    '--data',
    `@${file}`,
    '--override',
    'data.total=7.25',
    '--add',
    'data.channel=web',
    '--remove',
    'data.note',
    ...as(sb),
  ]);
  assert.notEqual(resent.id, original.id);
  assert.deepEqual([resent.resentFrom.id, resent.resentFrom.edited], [original.id, true]);
  assert.equal(resent.attempts[0].responseStatus, 200, 'waited for its first attempt');
  const [got] = sentWithId(resent.id);
  assert.deepEqual(JSON.parse(got.body).data, {
    ...original.envelope.data,
    customerId: 'cus_0002',
    total: 7.25,
    channel: 'web',
  });
  const now = await delivery(sb, original.id);
  assert.equal(now.rawBody, original.rawBody);
  assert.deepEqual(now.resentAs, [resent.id]);

  const human = await runCli(['resend', original.id, '--new', ...as(sb)]);
  assert.equal(human.code, 0, human.stderr);
  const [, , line, link] = /^Resent \S+ as (dlv_\S+), unchanged\n(.*)\nInspect: (\S+)\n$/.exec(human.stdout) ?? [];
  assert.ok(line, human.stdout);
  assert.match(line, /\[200\] \d+ ms, attempt 1 \(initial\)\s+· succeeded$/);
  assert.match(link, /\/deliveries\/dlv_/);
});

test('resend --keep-id sends the original deliveryId again; a schema-breaking edit fails naming the path, sending nothing', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/kept`, ['order.placed']);
  const original = await runCliJson(['trigger', 'order.placed', '--to', endpoint.id, ...as(sb)]);
  const kept = await runCliJson(['resend', original.id, '--keep-id', ...as(sb)]);
  assert.notEqual(kept.id, original.id);
  assert.equal(kept.envelope.deliveryId, original.id);
  assert.equal(sentWithId(original.id).length, 2, 'the receiver saw the same deliveryId twice');

  const before = (await sb.api('/api/v1/webhooks/deliveries')).body.data.length;
  assertOneLineFailure(
    await runCli(['resend', original.id, '--override', 'data.total=lots', ...as(sb)]),
    /\/data\/total: .*\(validation_failed\)$/,
  );
  assertOneLineFailure(
    await runCli(['resend', original.id, '--override', 'data.nope=1', ...as(sb)]),
    /no field \/nope/,
  );
  assert.equal((await sb.api('/api/v1/webhooks/deliveries')).body.data.length, before);
});
