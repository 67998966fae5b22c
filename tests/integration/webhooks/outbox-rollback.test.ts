import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { silentLogger } from '../../../src/server/log.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const engine = useEngine({ logger: silentLogger });
const rx = new Receiver();
before(() => rx.start());
after(() => rx.close());

// DESIGN.md's transactional outbox: the dispatcher hears of a delivery only after COMMIT. Here
// the emit succeeds and a later statement of the same transaction fails, so it rolls back.
test('a transaction that emits and then fails sends nothing and leaves no delivery', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, rx.url, ['order.placed']);
  const quote = (
    await sb.api('/api/v1/quotes', {
      body: {
        customerId: 'cus_0001',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'Van', district: 'Tuşba' },
      },
    })
  ).body;
  assert.equal((await sb.api(`/api/v1/quotes/${quote.id}/send`, { method: 'POST' })).status, 200);
  assert.equal((await sb.api(`/api/v1/quotes/${quote.id}/accept`, { method: 'POST' })).status, 200);

  // Converting places the order (emitting order.placed), then marks the quote converted: that last write fails.
  const db = engine.running.services.db;
  await db.exec(`
    create or replace function fail_convert_for_test() returns trigger language plpgsql as $$
    begin if new.tenant_id = '${sb.id}' and new.status = 'converted' then raise exception 'simulated failure after emit'; end if; return new; end $$;
    create trigger fail_convert_for_test before update on quotes for each row execute function fail_convert_for_test();`);
  try {
    problem(
      await sb.api(`/api/v1/quotes/${quote.id}/convert`, { method: 'POST', faultInjected: true }),
      500,
      'internal_error',
    );
  } finally {
    await db.exec('drop trigger fail_convert_for_test on quotes; drop function fail_convert_for_test();');
  }
  assert.equal((await sb.api(`/api/v1/quotes/${quote.id}`)).body.status, 'accepted', 'the conversion rolled back');
  assert.deepEqual((await sb.api('/api/v1/webhooks/deliveries')).body.data, [], 'no delivery row');
  assert.deepEqual(
    (await sb.api('/api/v1/events')).body.data.filter((e: any) => e.topic === 'order.placed'),
    [],
  );

  // A committed order's delivery comes next: by the time it arrives, a delivery dispatched
  // before the rollback would have arrived too.
  await placeOrder(sb);
  const [only] = await rx.waitFor(1);
  const [committed] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(rx.received.length, 1, 'the receiver got only the committed order');
  assert.equal(only.headers['x-service-delivery-id'], committed.id);
});
