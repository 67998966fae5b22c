import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { advance, eventTopics, lastEvent, ok, paths, stockOf, variantAt } from './helpers.ts';

const engine = useEngine();

const draft = async (
  sb: Awaited<ReturnType<typeof createSandbox>>,
  extra: Record<string, unknown> = {},
  variantId = 'var_0001',
) =>
  ok(
    await sb.api('/api/v1/quotes', {
      body: {
        customerId: 'cus_0001',
        items: [{ variantId, quantity: 10, unitPrice: 399.99 }],
        shippingAddress: { city: 'Ankara', district: 'Çankaya' },
        ...extra,
      },
    }),
    201,
  );

test('draft → sent → accepted → converted: the order is placed at the quoted prices in the same step', async () => {
  const sb = await createSandbox(engine.url);
  const variantId = await variantAt(sb, 450, 20);
  const q = await draft(sb, {}, variantId);
  assert.deepEqual([q.status, q.total, q.items[0].unitPrice, q.expiresAt], ['draft', 3999.9, 399.99, null]);
  const sent = ok(await sb.api(`/api/v1/quotes/${q.id}/send`, { method: 'POST' }));
  assert.equal(sent.status, 'sent');
  assert.equal(Date.parse(sent.expiresAt) - Date.parse(sent.sentAt), 14 * 86_400_000);
  assert.equal((await lastEvent(sb, 'quote.sent')).data.validUntil, sent.expiresAt);
  ok(await sb.api(`/api/v1/quotes/${q.id}/accept`, { method: 'POST' }));
  const converted = ok(await sb.api(`/api/v1/quotes/${q.id}/convert`, { method: 'POST' }));
  assert.equal(converted.status, 'converted');
  const o = ok(await sb.api(`/api/v1/orders/${converted.orderId}`));
  assert.deepEqual([o.status, o.total, o.items[0].unitPrice, o.items[0].quantity], ['placed', 3999.9, 399.99, 10]);
  assert.equal(await stockOf(sb, variantId), 10);
  const e = await lastEvent(sb, 'quote.converted');
  assert.deepEqual([e.data.orderId, e.data.previousStatus, e.data.total], [o.id, 'accepted', 3999.9]);
  const topics = await eventTopics(sb);
  assert.deepEqual(
    topics.filter((t) => t.startsWith('quote.') || t === 'order.placed'),
    ['quote.sent', 'quote.accepted', 'order.placed', 'quote.converted'],
  );
});

test('refused transitions are 409 quote_<status>; a failed conversion leaves the quote accepted', async () => {
  const sb = await createSandbox(engine.url);
  const variantId = await variantAt(sb, 100, 5);
  const q = await draft(sb, {}, variantId);
  problem(await sb.api(`/api/v1/quotes/${q.id}/accept`, { method: 'POST' }), 409, 'quote_draft');
  problem(await sb.api(`/api/v1/quotes/${q.id}/convert`, { method: 'POST' }), 409, 'quote_draft');
  ok(await sb.api(`/api/v1/quotes/${q.id}/send`, { method: 'POST' }));
  problem(await sb.api(`/api/v1/quotes/${q.id}/send`, { method: 'POST' }), 409, 'quote_sent');
  ok(await sb.api(`/api/v1/quotes/${q.id}/accept`, { method: 'POST' }));
  problem(await sb.api(`/api/v1/quotes/${q.id}/reject`, { method: 'POST' }), 409, 'quote_accepted');
  // 10 wanted, 5 in stock: the conversion fails as a whole.
  problem(await sb.api(`/api/v1/quotes/${q.id}/convert`, { method: 'POST' }), 422, 'insufficient_stock');
  const after = ok(await sb.api(`/api/v1/quotes/${q.id}`));
  assert.deepEqual([after.status, after.orderId], ['accepted', null]);
  assert.equal(await stockOf(sb, variantId), 5);
  assert.ok(!(await eventTopics(sb)).includes('quote.converted'));

  const r = await draft(sb);
  ok(await sb.api(`/api/v1/quotes/${r.id}/send`, { method: 'POST' }));
  const rejected = ok(await sb.api(`/api/v1/quotes/${r.id}/reject`, { body: { reason: 'Fiyat yüksek.' } }));
  assert.deepEqual([rejected.status, rejected.decisionReason], ['rejected', 'Fiyat yüksek.']);
  assert.equal((await lastEvent(sb, 'quote.rejected')).data.reason, 'Fiyat yüksek.');
  problem(await sb.api(`/api/v1/quotes/${r.id}/accept`, { method: 'POST' }), 409, 'quote_rejected');
});

test('a sent quote expires after validDays on the sandbox clock (quote.expired); expired quotes cannot be accepted', async () => {
  const sb = await createSandbox(engine.url);
  const q = await draft(sb, { validDays: 2 });
  const sent = ok(await sb.api(`/api/v1/quotes/${q.id}/send`, { method: 'POST' }));
  await advance(sb, 2 * 86_400 - 60);
  assert.equal(ok(await sb.api(`/api/v1/quotes/${q.id}`)).status, 'sent');
  await advance(sb, 120);
  const expired = ok(await sb.api(`/api/v1/quotes/${q.id}`));
  assert.equal(expired.status, 'expired');
  const e = await lastEvent(sb, 'quote.expired');
  assert.deepEqual([e.data.quoteId, e.occurredAt, e.data.at], [q.id, sent.expiresAt, sent.expiresAt]);
  problem(await sb.api(`/api/v1/quotes/${q.id}/accept`, { method: 'POST' }), 409, 'quote_expired');

  const accepted = await draft(sb, { validDays: 1 });
  ok(await sb.api(`/api/v1/quotes/${accepted.id}/send`, { method: 'POST' }));
  ok(await sb.api(`/api/v1/quotes/${accepted.id}/accept`, { method: 'POST' }));
  await advance(sb, 2 * 86_400);
  assert.equal(
    ok(await sb.api(`/api/v1/quotes/${accepted.id}`)).status,
    'accepted',
    'an accepted quote no longer expires',
  );
});

test('validation, unknown references and tenant isolation', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const bad = problem(
    await a.api('/api/v1/quotes', {
      body: {
        customerId: 'cus_0001',
        items: [
          { variantId: 'var_0001', quantity: 0, unitPrice: 1.234 },
          { variantId: 'var_0001', quantity: 1 },
        ],
        shippingAddress: { city: '', district: 'x' },
        validDays: 91,
      },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), [
    '/items/0/quantity',
    '/items/0/unitPrice',
    '/items/1/variantId',
    '/shippingAddress/city',
    '/validDays',
  ]);
  problem(
    await a.api('/api/v1/quotes', {
      body: {
        customerId: 'cus_nope',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'Van', district: 'Tuşba' },
      },
    }),
    422,
    'customer_not_found',
  );
  const unknown = problem(
    await a.api('/api/v1/quotes', {
      body: {
        customerId: 'cus_0001',
        items: [{ variantId: 'var_nope', quantity: 1 }],
        shippingAddress: { city: 'Van', district: 'Tuşba' },
      },
    }),
    422,
    'variant_not_found',
  );
  assert.deepEqual(paths(unknown), ['/items/0/variantId']);
  const q = await draft(a);
  problem(await b.api(`/api/v1/quotes/${q.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/quotes/${q.id}/send`, { method: 'POST' }), 404, 'not_found');
  assert.deepEqual(
    ok(await a.api('/api/v1/quotes?status=converted')).data.map((x: any) => x.id),
    ['quo_0005'],
  );
});
