import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { stockOf } from '../../helpers/orders.ts';
import { placeOrder } from '../../helpers/webhooks.ts';

const engine = useEngine();

test('cancel returns the cancelled order and its stock; a second cancel is 409 order_cancelled', async () => {
  const sb = await createSandbox(engine.url);
  const before = await stockOf(engine.running, sb.id, 'var_0001');
  const order = await placeOrder(sb);
  assert.equal(await stockOf(engine.running, sb.id, 'var_0001'), before - 1, 'reserved');

  const res = await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { ...order, status: 'cancelled' });
  assert.equal(await stockOf(engine.running, sb.id, 'var_0001'), before, 'returned');

  const again = problem(await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' }), 409, 'order_cancelled');
  assert.equal(again.currentStatus, 'cancelled');
  assert.equal(await stockOf(engine.running, sb.id, 'var_0001'), before, 'not returned twice');
});

test('a paid order cannot be cancelled (409 order_paid); unknown ids are 404', async () => {
  const sb = await createSandbox(engine.url);
  assert.equal((await sb.api('/api/v1/orders/ord_0005')).body.status, 'paid');
  const res = problem(await sb.api('/api/v1/orders/ord_0005/cancel', { method: 'POST' }), 409, 'order_paid');
  assert.equal(res.currentStatus, 'paid');
  problem(await sb.api('/api/v1/orders/ord_nope/cancel', { method: 'POST' }), 404, 'not_found');
  problem(await sb.api('/api/v1/orders/ord_nope'), 404, 'not_found');
});

test('cancel takes an optional reason and refuses anything else', async () => {
  const sb = await createSandbox(engine.url);
  const order = await placeOrder(sb);
  problem(await sb.api(`/api/v1/orders/${order.id}/cancel`, { body: { reason: 'bored' } }), 422, 'validation_failed');
  problem(await sb.api(`/api/v1/orders/${order.id}/cancel`, { body: { why: 'x' } }), 400, 'unknown_field');
  assert.equal((await sb.api(`/api/v1/orders/${order.id}`)).body.status, 'placed');
  const res = await sb.api(`/api/v1/orders/${order.id}/cancel`, { body: { reason: 'out_of_stock' } });
  assert.equal(res.status, 200);
  const [event] = (await sb.api('/api/v1/events?topic=order.cancelled')).body.data;
  assert.equal(event.data.reason, 'out_of_stock');
});
