import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../src/server/log.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { orderBody, orderCount, stockOf } from '../../helpers/orders.ts';
import { placeOrder } from '../../helpers/webhooks.ts';

const engine = useEngine({ logger: silentLogger });

test('placing and cancelling an order record order.placed and order.cancelled events', async () => {
  const sb = await createSandbox(engine.url);
  assert.equal((await sb.api('/api/v1/events')).body.data.length, 0, 'seeding emits nothing (SPEC §1)');
  const order = await placeOrder(sb);
  await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  const events = (await sb.api('/api/v1/events')).body.data;
  assert.deepEqual(
    events.map((e: any) => e.topic),
    ['order.cancelled', 'order.placed'],
  );
  const placed = events[1];
  assert.match(placed.id, /^evt_/);
  assert.deepEqual(placed.data, { orderId: order.id, total: order.total, currency: 'TRY', customerId: 'cus_0001' });
  assert.equal(placed.occurredAt, order.createdAt, 'the event happened when the order was placed');
  assert.equal(events[0].data.orderId, order.id);
  const one = await sb.api(`/api/v1/events/${placed.id}`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.deliveries, [], 'no endpoint, no delivery');
});

test('a failure after the order row is written rolls everything back: no order, no stock moved, no event', async () => {
  const sb = await createSandbox(engine.url);
  const db = engine.running.services.db;
  // Simulate a crash mid-request: the event insert fails for this sandbox only.
  await db.exec(`
    create or replace function fail_for_test() returns trigger language plpgsql as $$
    begin if new.tenant_id = '${sb.id}' then raise exception 'simulated crash'; end if; return new; end $$;
    create trigger fail_for_test before insert on events for each row execute function fail_for_test();`);
  try {
    const stock = await stockOf(engine.running, sb.id, 'var_0001');
    const res = problem(
      await sb.api('/api/v1/orders', { body: orderBody(), faultInjected: true }),
      500,
      'internal_error',
    );
    assert.ok(!JSON.stringify(res).includes('simulated crash'), 'no internals or stack in the response');
    assert.equal(await orderCount(engine.running, sb.id), 200);
    assert.equal(await stockOf(engine.running, sb.id, 'var_0001'), stock);
    problem(
      await sb.api('/api/v1/orders/ord_0001/cancel', { method: 'POST', faultInjected: true }),
      500,
      'internal_error',
    );
    assert.equal((await sb.api('/api/v1/orders/ord_0001')).body.status, 'placed', 'the cancel rolled back too');
  } finally {
    await db.exec('drop trigger fail_for_test on events; drop function fail_for_test();');
  }
  assert.equal((await sb.api('/api/v1/orders', { body: orderBody() })).status, 201, 'the sandbox works again');
  assert.equal((await sb.api('/api/v1/events')).body.data.length, 1);
});
