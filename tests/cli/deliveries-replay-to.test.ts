// `sandbay deliveries replay --to URL` (issue 31): last night's failures sent to a receiver on another port,
// as new deliveries signed with the endpoint's secret.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli, runCliJson } from '../helpers/cli.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';
import { advance, delivery, registerEndpoint } from '../helpers/webhooks.ts';

const engine = useEngine();
const production = new Receiver();
const laptop = new Receiver();
before(async () => {
  await production.start();
  await laptop.start();
});
after(async () => {
  await production.close();
  await laptop.close();
});

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

test('deliveries replay --to: --dry-run says where, then the failures reach the other receiver, verifiably signed', async () => {
  const sb = await createSandbox(engine.url);
  production.behaviour = { kind: 'status', status: 500 };
  const endpoint = await registerEndpoint(sb, production.url, ['*']);
  const dead = await runCliJson(['trigger', 'order.placed', '--to', endpoint.id, ...as(sb)]);
  await advance(sb, 2 * 3600);
  const failed = await runCliJson(['trigger', 'payment.captured', '--to', endpoint.id, ...as(sb)]);

  const dry = await runCli(['deliveries', 'replay', '--to', laptop.url, '--dry-run', ...as(sb)]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`2 deliveries would be replayed to ${laptop.url} \\(dry run: nothing sent\\)`));
  assert.equal(laptop.received.length, 0);

  const done = await runCli(['deliveries', 'replay', '--to', laptop.url, ...as(sb)]);
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stdout, new RegExp(`^Replayed 2 to ${laptop.url} as new deliveries: 2 succeeded, 0 failed\\n$`));
  const got = await laptop.waitFor(2);
  for (const original of [dead, failed]) {
    const [resent] = (await delivery(sb, original.id)).resentAs;
    const request = got.find((r) => r.headers['x-service-delivery-id'] === resent);
    assert.ok(request, `${original.id} arrived as ${resent}`);
    assert.ok(independentlyVerify(String(request.headers['x-service-signature']), request.body, endpoint.secret));
  }
  // A dry run names where each replayed delivery went: the other URL, not its endpoint's or a test URL.
  const listed = await runCli(['deliveries', 'replay', '--status', 'succeeded', '--dry-run', ...as(sb)]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(listed.stdout.split('\n').filter((line) => line.includes(`  ${laptop.url}  `)).length, 2, listed.stdout);

  assertOneLineFailure(
    await runCli(['deliveries', 'replay', '--to', 'localhost:4000', ...as(sb)]),
    /validation_failed/,
  );
});
