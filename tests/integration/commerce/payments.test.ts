import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { checkedFetch } from '../../helpers/http.ts';
import { card, lastEvent, ok, order, pay, paths } from './helpers.ts';

const engine = useEngine();

test('a test card that succeeds captures the payment, pays the order and emits payment.captured', async () => {
  const sb = await createSandbox(engine.url);
  const o = await order(sb, [{ variantId: 'var_0001', quantity: 3 }]);
  const p = ok(await pay(sb, o.id, '4242 4242 4242 4242'), 201);
  assert.match(p.id, /^pay_/);
  assert.deepEqual(
    [p.status, p.amount, p.currency, p.card, p.nextAction],
    ['captured', o.total, 'TRY', { brand: 'visa', last4: '4242' }, null],
  );
  assert.equal(ok(await sb.api(`/api/v1/orders/${o.id}`)).status, 'paid');
  const e = await lastEvent(sb, 'payment.captured');
  assert.deepEqual(
    [e.data.paymentId, e.data.orderId, e.data.amount, e.data.previousStatus],
    [p.id, o.id, o.total, null],
  );
  problem(await pay(sb, o.id), 409, 'order_paid');
});

test('declines are 402 card_declined with the decline code; the order stays payable', async () => {
  const sb = await createSandbox(engine.url);
  const o = await order(sb);
  const cases: [string, string][] = [
    ['4000000000009995', 'insufficient_funds'],
    ['4100000000000019', 'fraudulent'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['5100050000006661', 'insufficient_funds'],
    ['4111111111111111', 'test_mode_live_card'],
  ];
  for (const [number, code] of cases) {
    const declined = problem(await pay(sb, o.id, number), 402, 'card_declined');
    assert.equal(declined.declineCode, code, number);
    assert.equal(ok(await sb.api(`/api/v1/payments/${declined.paymentId}`)).status, 'failed');
  }
  const past = problem(
    await sb.api('/api/v1/payments', {
      body: { orderId: o.id, card: card('4242424242424242', { expMonth: 1, expYear: 2020 }) },
    }),
    402,
    'card_declined',
  );
  assert.equal(past.declineCode, 'expired_card');
  assert.equal(ok(await sb.api(`/api/v1/orders/${o.id}`)).status, 'placed');
  assert.equal(ok(await pay(sb, o.id), 201).status, 'captured');
});

test('3-D Secure via the API: requires_action, then approve captures or fail declines (authentication_failed)', async () => {
  const sb = await createSandbox(engine.url);
  const o = await order(sb);
  const p = ok(await pay(sb, o.id, '4000002760003184'), 201);
  assert.equal(p.status, 'requires_action');
  assert.equal(p.nextAction.type, 'three_d_secure');
  assert.ok(p.nextAction.url.startsWith(`${engine.url}/3ds/${p.id}?token=`));
  problem(await pay(sb, o.id), 409, 'payment_requires_action');
  problem(await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: {} }), 409, 'payment_requires_action');
  const captured = ok(await sb.api(`/api/v1/payments/${p.id}/3ds`, { body: { outcome: 'approve' } }));
  assert.deepEqual([captured.status, captured.threeDSecure, captured.nextAction], ['captured', true, null]);
  assert.equal((await lastEvent(sb, 'payment.captured')).data.previousStatus, 'requires_action');
  problem(await sb.api(`/api/v1/payments/${p.id}/3ds`, { body: { outcome: 'fail' } }), 409, 'payment_captured');

  const o2 = await order(sb);
  const p2 = ok(await pay(sb, o2.id, '5209320000006668'), 201);
  const failed = ok(await sb.api(`/api/v1/payments/${p2.id}/3ds`, { body: { outcome: 'fail' } }));
  assert.deepEqual([failed.status, failed.declineCode], ['failed', 'authentication_failed']);
  assert.equal(ok(await sb.api(`/api/v1/orders/${o2.id}`)).status, 'placed');
});

test('3-D Secure via the challenge page: the shopper approves in the browser and returns to returnUrl', async () => {
  const sb = await createSandbox(engine.url);
  const o = await order(sb);
  const p = ok(await pay(sb, o.id, '4000000000003220', { returnUrl: 'http://localhost:3000/checkout/done' }), 201);
  const page = await checkedFetch(p.nextAction.url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /card ending in <code>3220<\/code>/);
  const token = new URL(p.nextAction.url).searchParams.get('token')!;
  assert.equal((await checkedFetch(`${engine.url}/3ds/${p.id}?token=wrong`)).status, 404);
  const decided = await checkedFetch(`${engine.url}/3ds/${p.id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: engine.url },
    body: new URLSearchParams({ token, outcome: 'approve' }),
  });
  assert.equal(decided.status, 303);
  assert.equal(
    decided.headers.get('location'),
    `http://localhost:3000/checkout/done?payment_id=${p.id}&status=captured`,
  );
  assert.equal(ok(await sb.api(`/api/v1/payments/${p.id}`)).status, 'captured');
  assert.equal((await checkedFetch(p.nextAction.url)).status, 404, 'a decided challenge is gone');
});

test('refunds: partial then the rest, exactly to the cent; more than what remains is 422; nothing negative', async () => {
  const sb = await createSandbox(engine.url);
  // 0.1 + 0.2 style amounts: a float sum would drift; minor units do not.
  const product = ok(
    await sb.api('/api/v1/products', {
      body: {
        name: 'Kalem',
        category: 'Kırtasiye',
        variants: [{ sku: 'KALEM-1', name: 'Mavi', price: 0.3, stock: 100 }],
      },
    }),
    201,
  );
  ok(await sb.api(`/api/v1/products/${product.id}/publish`, { method: 'POST' }));
  const o = await order(sb, [{ variantId: product.variants[0].id, quantity: 7 }]);
  assert.equal(o.total, 2.1);
  const p = ok(await pay(sb, o.id), 201);
  const r1 = ok(
    await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: 0.1, reason: 'requested_by_customer' } }),
    201,
  );
  assert.deepEqual([r1.status, r1.refunded], ['partially_refunded', 0.1]);
  const r2 = ok(await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: 0.2 } }), 201);
  assert.equal(r2.refunded, 0.3);
  const e = await lastEvent(sb, 'payment.refunded');
  assert.deepEqual(
    [e.data.amount, e.data.refundedTotal, e.data.remaining, e.data.previousStatus, e.data.status],
    [0.2, 0.3, 1.8, 'partially_refunded', 'partially_refunded'],
  );
  const over = problem(
    await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: 1.81 } }),
    422,
    'amount_exceeds_refundable',
  );
  assert.deepEqual([over.refundable, paths(over)], [1.8, ['/amount']]);
  problem(await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: 0.001 } }), 422, 'validation_failed');
  problem(await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: -1 } }), 422, 'validation_failed');
  const rest = ok(await sb.api(`/api/v1/payments/${p.id}/refunds`, { method: 'POST' }), 201);
  assert.deepEqual(
    [rest.status, rest.refunded, rest.refunds.map((r: any) => r.amount)],
    ['refunded', 2.1, [0.1, 0.2, 1.8]],
  );
  problem(await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: 0.01 } }), 409, 'payment_refunded');
});

test('the refund-failure test card: captured, but a refund fails with 402 refund_failed and changes nothing', async () => {
  const sb = await createSandbox(engine.url);
  const o = await order(sb);
  const p = ok(await pay(sb, o.id, '4000000000005126'), 201);
  const failed = problem(
    await sb.api(`/api/v1/payments/${p.id}/refunds`, { body: { amount: 1 } }),
    402,
    'refund_failed',
  );
  assert.match(failed.refundId, /^re_/);
  const after = ok(await sb.api(`/api/v1/payments/${p.id}`));
  assert.deepEqual(
    [after.status, after.refunded, after.refunds.map((r: any) => r.status)],
    ['captured', 0, ['failed']],
  );
});

test('validation, unknown references and tenant isolation', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const o = await order(a);
  const luhn = problem(await pay(a, o.id, '4242424242424241'), 422, 'validation_failed');
  assert.deepEqual(paths(luhn), ['/card/number']);
  const cvc = problem(
    await a.api('/api/v1/payments', { body: { orderId: o.id, card: card('378282246310005') } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(cvc), ['/card/cvc']);
  const shape = problem(
    await a.api('/api/v1/payments', {
      body: { orderId: o.id, card: { number: '4242424242424242', expMonth: 13, expYear: 2030 } },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(shape).sort(), ['/card/cvc', '/card/expMonth']);
  problem(await a.api('/api/v1/payments', { body: { orderId: 'ord_nope', card: card() } }), 422, 'order_not_found');
  problem(await a.api('/api/v1/payments', { body: { orderId: o.id, card: card(), tip: 5 } }), 400, 'unknown_field');
  const p = ok(await pay(a, o.id), 201);
  problem(await b.api(`/api/v1/payments/${p.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/payments/${p.id}/refunds`, { body: {} }), 404, 'not_found');
  problem(await b.api('/api/v1/payments', { body: { orderId: o.id, card: card() } }), 422, 'order_not_found');
  const cancelled = await order(a);
  ok(await a.api(`/api/v1/orders/${cancelled.id}/cancel`, { method: 'POST' }));
  problem(await pay(a, cancelled.id), 409, 'order_cancelled');
  const listed = ok(await a.api(`/api/v1/payments?orderId=${o.id}`));
  assert.deepEqual(
    listed.data.map((x: any) => x.id),
    [p.id],
  );
  assert.equal((await call(engine.url, '/api/v1/payments/test-cards')).status, 401);
});
