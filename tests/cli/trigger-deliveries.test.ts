import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli, runCliJson } from '../helpers/cli.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';
import { delivery, registerEndpoint } from '../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

test('trigger delivers a signed sample and prints its first attempt', async () => {
  const sb = await createSandbox(engine.url);
  const result = await runCli(['trigger', 'order.placed', '--to', receiver.url, ...as(sb)]);
  assert.equal(result.code, 0, result.stderr);
  const [line, link] = result.stdout.trim().split('\n');
  const id = /^(dlv_\w+)\s/.exec(line)?.[1];
  assert.ok(id, line);
  assert.match(
    line,
    /order\.placed\s+→ http:\/\/127\.0\.0\.1:\d+\/hook\s+\[200\] \d+ ms, attempt 1 \(initial\)\s+· succeeded$/,
  );
  assert.equal(link, `Inspect: ${engine.url}/sandboxes/${sb.id}/deliveries/${id}`);
  const got = receiver.received.find((r) => r.headers['x-service-delivery-id'] === id)!;
  assert.ok(independentlyVerify(String(got.headers['x-service-signature']), got.body, sb.webhookTestSecret));
  assert.equal((await delivery(sb, id)).status, 'succeeded');
});

test('trigger --to an endpoint id signs with that endpoint, and --json prints the delivery', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.*']);
  const d = await runCliJson(['trigger', 'order.cancelled', '--to', endpoint.id, ...as(sb)]);
  assert.equal(d.endpointId, endpoint.id);
  assert.equal(d.attempts[0].responseStatus, 200);
  const got = receiver.received.find((r) => r.headers['x-service-delivery-id'] === d.id)!;
  assert.ok(independentlyVerify(String(got.headers['x-service-signature']), got.body, endpoint.secret));
});

test('trigger --no-wait returns the pending delivery at once', async () => {
  const sb = await createSandbox(engine.url);
  const sent = await runCliJson(['trigger', 'order.placed', '--to', receiver.url, '--no-wait', ...as(sb)]);
  assert.match(sent.deliveryId, /^dlv_/);
  assert.equal(sent.status, 'pending');
});

test('deliveries prints an aligned table, filters, pages, and --json gives the API page', async () => {
  const sb = await createSandbox(engine.url);
  const ok = await runCliJson(['trigger', 'order.placed', '--to', receiver.url, ...as(sb)]);
  const failing = await runCliJson(['trigger', 'order.cancelled', '--to', 'http://127.0.0.1:9/closed', ...as(sb)]);

  const table = await runCli(['deliveries', ...as(sb)]);
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0], /^STATUS\s+TOPIC\s+DELIVERY\s+ATTEMPTS\s+LAST\s+NEXT ATTEMPT\s+URL$/);
  assert.equal(lines.length, 3);
  const column = lines[0].indexOf('DELIVERY');
  assert.ok(
    lines.slice(1).every((l) => /^dlv_/.test(l.slice(column))),
    'ids line up under DELIVERY',
  );
  assert.match(
    lines[1],
    new RegExp(
      `^pending\\s+order\\.cancelled\\s+${failing.id}\\s+1\\s+ERR connection refused\\s+in \\d+s\\s+http://127\\.0\\.0\\.1:9/closed$`,
    ),
  );
  assert.match(lines[2], new RegExp(`^succeeded\\s+order\\.placed\\s+${ok.id}\\s+1\\s+200\\s+—\\s+http://`));

  const page = await runCliJson(['deliveries', '--status', 'succeeded', ...as(sb)]);
  assert.deepEqual(
    page.data.map((d: any) => d.id),
    [ok.id],
  );
  assert.equal(page.nextCursor, null);
  const first = await runCli(['deliveries', '--limit', '1', ...as(sb)]);
  assert.match(first.stdout, /\n… more: --cursor \S+\n$/);
  const cursor = /--cursor (\S+)/.exec(first.stdout)![1];
  const second = await runCliJson(['deliveries', '--limit', '1', '--cursor', cursor, ...as(sb)]);
  assert.deepEqual(
    second.data.map((d: any) => d.id),
    [ok.id],
  );
  assertOneLineFailure(await runCli(['deliveries', '--status', 'lost', ...as(sb)]), /validation_failed/);
});

test('resend retries a pending delivery and replays a finished one', async () => {
  const sb = await createSandbox(engine.url);
  const pending = await runCliJson(['trigger', 'order.placed', '--to', 'http://127.0.0.1:9/closed', ...as(sb)]);
  const retried = await runCliJson(['resend', pending.id, ...as(sb)]);
  assert.deepEqual(
    retried.attempts.map((a: any) => a.trigger),
    ['initial', 'manual'],
  );
  assert.equal(retried.status, 'pending');

  const done = await runCliJson(['trigger', 'order.placed', '--to', receiver.url, ...as(sb)]);
  const human = await runCli(['resend', done.id, ...as(sb)]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(
    human.stdout,
    new RegExp(
      `^${done.id}\\s+order\\.placed\\s+→ \\S+\\s+\\[200\\] \\d+ ms, attempt 2 \\(replay\\)\\s+· succeeded\\n`,
    ),
  );
  assert.equal(receiver.received.filter((r) => r.headers['x-service-delivery-id'] === done.id).length, 2);
});

test('trigger --to host:port/path (no scheme) as the examples write it, and a Standard Webhooks delivery links to its sandbox', async () => {
  const sb = await createSandbox(engine.url);
  const bare = receiver.url.replace(/^http:\/\//, '');
  const plain = await runCli(['trigger', 'order.placed', '--to', bare, ...as(sb)]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, new RegExp(`→ ${receiver.url}\\s+\\[200\\]`));
  // Its envelope names no sandbox: the link comes from the token's sandbox, or the admin key's --sandbox.
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.*'], { signature: 'standard-webhooks' });
  for (const auth of [as(sb), ['--url', engine.url, '--token', engine.running.adminKey, '--sandbox', sb.id]]) {
    const result = await runCli(['trigger', 'order.placed', '--to', endpoint.id, ...auth]);
    assert.equal(result.code, 0, result.stderr);
    const [line, link] = result.stdout.trim().split('\n');
    assert.equal(link, `Inspect: ${engine.url}/sandboxes/${sb.id}/deliveries/${/^(dlv_\w+)\s/.exec(line)![1]}`);
  }
});

test('a delivery whose endpoint a 410 Gone turned off says it is paused, in trigger and in deliveries', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/gone`, ['order.*'], { signature: 'standard-webhooks' });
  receiver.behaviour = { kind: 'status', status: 410 };
  try {
    const result = await runCli(['trigger', 'order.placed', '--to', endpoint.id, ...as(sb)]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /\[410\] \d+ ms, attempt 1 \(initial\)\s+· pending, paused: Waiting: endpoint whe_\w+ is disabled \(its receiver answered 410 Gone\)/,
    );
    const list = await runCli(['deliveries', ...as(sb)]);
    assert.match(list.stdout, /pending\s+order\.placed\s+dlv_\w+\s+1\s+410\s+paused: endpoint disabled/);
  } finally {
    receiver.behaviour = { kind: 'status', status: 200, body: 'ok' };
  }
});
