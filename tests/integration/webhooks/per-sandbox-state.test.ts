// What an engine keeps in memory per sandbox is bounded by the work under way, not by the sandboxes ever
// made (src/db/cache-registry.ts, processState): sandboxes reset or deleted leave no entry behind, and
// test webhooks of two sandboxes to one bare URL each have their own ten turns.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';
import { LedgerReceiver } from '../team/engines.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('sandboxes worked, reset and deleted leave no entry behind in the dispatcher or the stream', async () => {
  const { dispatcher, stream } = engine.running.services.webhooks;
  for (let i = 0; i < 6; i++) {
    const sb = await createSandbox(engine.url);
    await registerEndpoint(sb, receiver.url, ['order.placed']);
    await placeOrder(sb);
    const [d] = (await sb.api('/api/v1/webhooks/deliveries?limit=1')).body.data;
    await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
    if (i % 3 === 0) assert.equal((await sb.api('/api/v1/sandbox/reset', { body: {} })).status, 200);
    else if (i % 3 === 1) assert.equal((await sb.api('/api/v1/sandbox/reset', { body: { scope: 'all' } })).status, 200);
    else assert.equal((await sb.api('/api/v1/sandbox', { method: 'DELETE' })).status, 204);
  }
  for (
    const deadline = Date.now() + 5000;
    dispatcher.sandboxesInFlight > 0;
    await new Promise((r) => setTimeout(r, 20))
  ) {
    assert.ok(Date.now() < deadline, `${dispatcher.sandboxesInFlight} sandboxes still held`);
  }
  assert.equal(stream.feedCount, 0, 'no stream client, no sandbox followed');
});

test('test webhooks of two sandboxes to the same bare URL each get ten attempts in flight', async () => {
  const slow = await new LedgerReceiver().start();
  slow.holdMs = 400;
  try {
    const sandboxes = [await createSandbox(engine.url), await createSandbox(engine.url)];
    await Promise.all(
      sandboxes.flatMap((sb) =>
        Array.from({ length: 15 }, async () => {
          const res = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: slow.url } });
          assert.equal(res.status, 202);
        }),
      ),
    );
    for (const deadline = Date.now() + 15_000; slow.total < 30; await new Promise((r) => setTimeout(r, 20))) {
      assert.ok(Date.now() < deadline, `${slow.total} of 30 arrived`);
    }
    assert.ok(slow.maxOpen > 10, `${slow.maxOpen} at once: the two sandboxes did not share one URL's ten turns`);
    assert.ok(slow.maxOpen <= 20, `${slow.maxOpen} at once: at most ten each`);
  } finally {
    await slow.close();
  }
});
