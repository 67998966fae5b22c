import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { topics } from '../../../src/shared/topics.ts';
import { topicDataSchemas } from '../../../src/webhooks/topics/schemas.ts';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { independentlyVerify, Receiver } from '../../helpers/receiver.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { advance, card, ok, order, pay, variantAt } from './helpers.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const post = async (sb: TestSandbox, path: string, body: unknown = {}, status = 200) =>
  ok(await sb.api(path, { method: 'POST', body }), status);

/** An approved vendor selling its own published product; returns ids. */
async function vendorWithSale(sb: TestSandbox, name: string, iban: string) {
  const v = await post(
    sb,
    '/api/v1/vendors',
    { name, email: `${name.length}@example.com.tr`, taxNumber: '1231231231', iban },
    201,
  );
  await post(sb, `/api/v1/vendors/${v.id}/approve`);
  const sku = `V-${Math.random().toString(36).slice(2, 8)}`;
  const p = await post(
    sb,
    '/api/v1/products',
    {
      name: `${name} ürünü`,
      category: 'Pazar yeri',
      vendorId: v.id,
      variants: [{ sku, name: 'Tek', price: 250, stock: 10 }],
    },
    201,
  );
  await post(sb, `/api/v1/products/${p.id}/publish`);
  const o = await order(sb, [{ variantId: p.variants[0].id, quantity: 2 }]);
  await post(sb, '/api/v1/payments', { orderId: o.id, card: card() }, 201);
  const today = new Date(Date.parse(ok(await sb.api('/api/v1/sandbox/clock')).now));
  const period = {
    periodStart: new Date(today.getTime() - 86_400_000).toISOString().slice(0, 10),
    periodEnd: today.toISOString().slice(0, 10),
  };
  return { vendorId: v.id, payout: await post(sb, '/api/v1/payouts', { vendorId: v.id, ...period }, 201) };
}

test('every one of the 33 topics arrives from its real operation, signed, with data that matches its schema', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['*']);

  // Orders and payments
  const paid = await order(sb, [{ variantId: 'var_0001', quantity: 2 }]); // order.placed
  await post(sb, `/api/v1/orders/${(await order(sb)).id}/cancel`); // order.cancelled
  const payment = ok(await pay(sb, paid.id), 201); // payment.captured
  await post(sb, `/api/v1/payments/${payment.id}/refunds`, { amount: 10.5 }, 201); // payment.refunded

  // Catalog
  const product = await post(
    sb,
    '/api/v1/products',
    { name: 'Lületaşı Pipo', category: 'Hobi', variants: [{ sku: 'PIPO-1', name: 'Klasik', price: 1250, stock: 3 }] },
    201,
  ); // product.created
  ok(await sb.api(`/api/v1/products/${product.id}`, { method: 'PATCH', body: { description: 'Eskişehir işi.' } })); // product.updated
  await post(sb, `/api/v1/products/${product.id}/publish`); // product.published
  await post(sb, `/api/v1/products/${product.id}/archive`); // product.archived

  // B2B approvals: cus_0041 buys for com_0001 (threshold 5,000 TRY; manager then finance)
  const pricey = await variantAt(sb, 6000);
  const approvalOf = async () => {
    const o = await order(sb, [{ variantId: pricey, quantity: 1 }], 'cus_0041'); // approval.request.created
    return ok(await sb.api(`/api/v1/approval-requests?orderId=${o.id}`)).data[0].id as string;
  };
  await post(sb, `/api/v1/approval-requests/${await approvalOf()}/approve`, { approverId: 'cus_0043' }); // approval.approved
  await post(sb, `/api/v1/approval-requests/${await approvalOf()}/reject`, {
    approverId: 'cus_0043',
    reason: 'Bütçe yok',
  }); // approval.rejected
  await approvalOf(); // approval.expired, 72 h later

  // Quotes
  const quote = async (validDays = 14) =>
    (
      await post(
        sb,
        '/api/v1/quotes',
        {
          customerId: 'cus_0002',
          items: [{ variantId: 'var_0001', quantity: 3, unitPrice: 300 }],
          shippingAddress: { city: 'Mersin', district: 'Yenişehir' },
          validDays,
        },
        201,
      )
    ).id;
  const won = await quote();
  await post(sb, `/api/v1/quotes/${won}/send`); // quote.sent
  await post(sb, `/api/v1/quotes/${won}/accept`); // quote.accepted
  await post(sb, `/api/v1/quotes/${won}/convert`); // quote.converted
  const lost = await quote();
  await post(sb, `/api/v1/quotes/${lost}/send`);
  await post(sb, `/api/v1/quotes/${lost}/reject`, { reason: 'Başka tedarikçi' }); // quote.rejected
  await post(sb, `/api/v1/quotes/${await quote(1)}/send`); // quote.expired, a day later

  // Marketplace: vendors, offers and the buybox, payouts
  const seller = await vendorWithSale(sb, 'Kapadokya Seramik', 'TR330006100519786457841326'); // vendor.applied, vendor.approved, payout.calculated
  await post(sb, `/api/v1/payouts/${seller.payout.id}/pay`); // payout.paid
  const failing = await vendorWithSale(sb, 'Fırat Kuruyemiş', 'TR029999000000000000000001');
  await post(sb, `/api/v1/payouts/${failing.payout.id}/pay`); // payout.failed, payout.retry.scheduled; given up 31 h later
  await post(sb, '/api/v1/vendors/ven_0003/reject', { reason: 'Eksik evrak' }); // vendor.rejected
  await post(sb, `/api/v1/vendors/${failing.vendorId}/offers`, { variantId: 'var_0005', price: 1, stock: 5 }, 201); // buybox.winner_changed
  await post(sb, `/api/v1/vendors/${failing.vendorId}/suspend`, { reason: 'Sahte ürün şikâyeti' }); // vendor.suspended

  // Reports and security
  await post(sb, '/api/v1/reports', { name: 'Günlük satış', kind: 'sales_summary', schedule: 'daily' }, 201); // saved_report.due, daily
  const invite = await post(
    sb,
    '/api/v1/staff',
    { email: 'yeni@example.com.tr', name: 'Yeni Kişi', role: 'support' },
    201,
  ); // staff.invited
  await post(sb, `/api/v1/staff/${invite.id}/accept`, { token: invite.invitationToken }); // staff.accepted
  const session = await post(
    sb,
    '/api/v1/impersonations',
    { staffId: 'stf_0002', customerId: 'cus_0005', reason: 'Adres sorunu' },
    201,
  ); // impersonation.started
  await post(sb, `/api/v1/impersonations/${session.id}/end`); // impersonation.ended
  await post(sb, '/api/v1/consents', { customerId: 'cus_0020', channel: 'email', status: 'granted' }, 201); // consent.iys.push_due, 15 min later

  // Expiries, payout retries, the report and the IYS push, in due-time order.
  await advance(sb, 73 * 3600);

  const received = await waitForTopics(sb, new Set(topics));
  for (const req of received) {
    const header = req.headers['x-service-signature'] as string;
    assert.ok(
      independentlyVerify(header, req.body, endpoint.secret),
      `valid HMAC-SHA256 signature on ${req.headers['x-service-topic']}`,
    );
    const envelope = JSON.parse(req.body);
    assert.equal(envelope.topic, req.headers['x-service-topic']);
    assert.equal(envelope.tenantId, sb.id);
    const parsed = topicDataSchemas[envelope.topic as keyof typeof topicDataSchemas].safeParse(envelope.data);
    assert.ok(parsed.success, `${envelope.topic}: ${JSON.stringify(parsed.error?.issues)}`);
    assert.deepEqual(parsed.data, envelope.data, `${envelope.topic} carries no fields beyond its schema`);
  }
  const seen = new Set(received.map((r) => r.headers['x-service-topic']));
  assert.deepEqual(
    topics.filter((t) => !seen.has(t)),
    [],
    'all 33 topics arrived',
  );
});

/** Waits until the sandbox has no pending delivery and every topic arrived; returns this sandbox's requests. */
async function waitForTopics(sb: TestSandbox, wanted: Set<string>) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mine = receiver.received.filter((r) => JSON.parse(r.body).tenantId === sb.id);
    const pending = ok(await sb.api('/api/v1/webhooks/deliveries?status=pending&limit=1')).data.length;
    if (pending === 0 && [...wanted].every((t) => mine.some((r) => r.headers['x-service-topic'] === t))) return mine;
    if (Date.now() > deadline) return mine;
    await new Promise((r) => setTimeout(r, 50));
  }
}
