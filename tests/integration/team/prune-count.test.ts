// The pruner counts a sandbox's deliveries in the database, not per engine: a sandbox is pruned every
// `min(500, cap)` new deliveries whichever engines made them, so it holds at most that many more than its
// cap (a count per engine let it exceed its cap by 499 per engine). Three engines each making fewer than
// that still get it pruned.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { useTeamEngines } from '../../helpers/team.ts';

const keep = 6;
const team = useTeamEngines(3, { maxDeliveriesPerSandbox: keep });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

test("deliveries made on three engines are pruned by the sandbox's one count", async () => {
  const [a] = team.engines;
  const sandbox = await createSandbox(a.url);
  await call(a.url, '/api/v1/webhooks/endpoints', {
    token: sandbox.token,
    body: { url: receiver.url, topics: ['order.placed'] },
  });
  const made: string[] = [];
  const total = 15;
  for (let i = 0; i < total; i++) {
    // Five on each engine, fewer than `keep`: only their sum passes it (twice: the first prune at 6 finds nothing to
    // drop).
    const engine = team.engines[Math.floor(i / 5)];
    assert.equal((await call(engine.url, '/api/v1/orders', { token: sandbox.token, body: order })).status, 201);
    made.push(
      (await call(engine.url, '/api/v1/webhooks/deliveries?limit=1', { token: sandbox.token })).body.data[0].id,
    );
    await receiver.waitFor(i + 1);
  }
  const listed = async () =>
    (await call(a.url, '/api/v1/webhooks/deliveries?limit=100', { token: sandbox.token })).body.data.map(
      (d: any) => d.id,
    );
  // Pruned at the 12th (keeping 6), then 3 more: 9; never more than the cap plus one step less one.
  for (
    const deadline = Date.now() + 5000;
    (await listed()).length === total;
    await new Promise((r) => setTimeout(r, 50))
  ) {
    assert.ok(Date.now() < deadline, `never pruned: ${total} deliveries`);
  }
  const kept = await listed();
  assert.ok(kept.length <= keep + keep - 1, `${kept.length} kept`);
  assert.deepEqual(kept, made.slice(-kept.length).reverse(), 'the newest are kept, in order');
});
