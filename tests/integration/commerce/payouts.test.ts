import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { advance, eventTopics, lastEvent, ok, order, pay, paths } from './helpers.ts';

const engine = useEngine();

/** An approved vendor (12.5 % commission) selling one published product at 333.33. */
async function sellingVendor(sb: TestSandbox, iban: string) {
  const v = ok(
    await sb.api('/api/v1/vendors', {
      body: {
        name: 'Toros Tekstil',
        email: 'toros@example.com.tr',
        taxNumber: '4445556667',
        iban,
        commissionBps: 1250,
      },
    }),
    201,
  );
  ok(await sb.api(`/api/v1/vendors/${v.id}/approve`, { method: 'POST' }));
  const sku = `TT-${Math.random().toString(36).slice(2, 8)}`;
  const p = ok(
    await sb.api('/api/v1/products', {
      body: {
        name: 'Havlu',
        category: 'Ev',
        vendorId: v.id,
        variants: [{ sku, name: 'Beyaz', price: 333.33, stock: 100 }],
      },
    }),
    201,
  );
  ok(await sb.api(`/api/v1/products/${p.id}/publish`, { method: 'POST' }));
  return { vendorId: v.id, variantId: p.variants[0].id };
}

/** Yesterday and today (sandbox clock): the period holds everything just captured, even across midnight. */
async function recent(sb: TestSandbox) {
  const now = Date.parse(ok(await sb.api('/api/v1/sandbox/clock')).now);
  return {
    periodStart: new Date(now - 86_400_000).toISOString().slice(0, 10),
    periodEnd: new Date(now).toISOString().slice(0, 10),
  };
}

test("a payout is the vendor's captured lines minus commission (half-up) and its share of refunds, to the cent", async () => {
  const sb = await createSandbox(engine.url);
  const { vendorId, variantId } = await sellingVendor(sb, 'TR330006100519786457841326');
  const o1 = await order(sb, [{ variantId, quantity: 3 }]);
  const p1 = ok(await pay(sb, o1.id), 201);
  const o2 = await order(sb, [
    { variantId, quantity: 1 },
    { variantId: 'var_0001', quantity: 1 },
  ]);
  ok(await pay(sb, o2.id), 201);
  await order(sb, [{ variantId, quantity: 5 }]); // placed, never paid: not in the payout
  ok(await sb.api(`/api/v1/payments/${p1.id}/refunds`, { body: { amount: 100 } }), 201);

  const period = await recent(sb);
  const payout = ok(await sb.api('/api/v1/payouts', { body: { vendorId, ...period } }), 201);
  // gross 999.99 + 333.33; commission 12.5 % of 1333.32 = 166.665 → 166.67; refund share 100.
  assert.deepEqual(
    [payout.status, payout.gross, payout.commission, payout.refunds, payout.amount, payout.orderCount],
    ['calculated', 1333.32, 166.67, 100, 1066.65, 2],
  );
  const e = await lastEvent(sb, 'payout.calculated');
  assert.deepEqual([e.data.payoutId, e.data.amount, e.data.periodStart], [payout.id, 1066.65, period.periodStart]);
  const overlap = problem(
    await sb.api('/api/v1/payouts', { body: { vendorId, ...period } }),
    409,
    'payout_period_overlaps',
  );
  assert.equal(overlap.payoutId, payout.id);

  const paid = ok(await sb.api(`/api/v1/payouts/${payout.id}/pay`, { method: 'POST' }));
  assert.deepEqual(
    [paid.status, paid.attemptCount, paid.attempts[0].outcome, paid.attempts[0].ibanLast4],
    ['paid', 1, 'paid', '1326'],
  );
  assert.deepEqual((await lastEvent(sb, 'payout.paid')).data.bankAccount, { ibanLast4: '1326' });
  problem(await sb.api(`/api/v1/payouts/${payout.id}/pay`, { method: 'POST' }), 409, 'payout_paid');
});

test('a failing bank account: retried 1 h, 6 h and 24 h after each failure on the sandbox clock, then given up', async () => {
  const sb = await createSandbox(engine.url);
  const { vendorId, variantId } = await sellingVendor(sb, 'TR029999000000000000000001');
  ok(await pay(sb, (await order(sb, [{ variantId, quantity: 1 }])).id), 201);
  const period = await recent(sb);
  const payout = ok(await sb.api('/api/v1/payouts', { body: { vendorId, ...period } }), 201);
  const first = ok(await sb.api(`/api/v1/payouts/${payout.id}/pay`, { method: 'POST' }));
  assert.deepEqual([first.status, first.attemptCount, first.lastFailureCode], ['retry_scheduled', 1, 'account_closed']);
  problem(await sb.api(`/api/v1/payouts/${payout.id}/pay`, { method: 'POST' }), 409, 'payout_retry_scheduled');
  const scheduled = await lastEvent(sb, 'payout.retry.scheduled');
  assert.deepEqual(
    [scheduled.data.attempt, scheduled.data.maxAttempts, scheduled.data.nextAttemptAt],
    [2, 4, first.nextAttemptAt],
  );

  await advance(sb, 31 * 3600 + 60);
  const done = ok(await sb.api(`/api/v1/payouts/${payout.id}`));
  assert.deepEqual([done.status, done.attemptCount, done.nextAttemptAt], ['failed', 4, null]);
  const at = done.attempts.map((a: any) => Date.parse(a.attemptedAt));
  assert.deepEqual(
    at.slice(1).map((t: number, i: number) => (t - at[i]) / 3600_000),
    [1, 6, 24],
  );
  const topics = (await eventTopics(sb)).filter((t) => t.startsWith('payout.'));
  assert.deepEqual(topics, [
    'payout.calculated',
    'payout.failed',
    'payout.retry.scheduled',
    'payout.failed',
    'payout.retry.scheduled',
    'payout.failed',
    'payout.retry.scheduled',
    'payout.failed',
    'payout.retry.given_up',
  ]);
  const givenUp = await lastEvent(sb, 'payout.retry.given_up');
  assert.deepEqual(
    [givenUp.data.attempts, givenUp.data.lastFailureCode, givenUp.occurredAt],
    [4, 'account_closed', done.attempts[3].attemptedAt],
  );
  // A failed payout frees its period for a new calculation.
  ok(await sb.api('/api/v1/payouts', { body: { vendorId, ...period } }), 201);
});

test('a bank that fails once: the first retry pays; a corrected IBAN is used by the next retry', async () => {
  const sb = await createSandbox(engine.url);
  const { vendorId, variantId } = await sellingVendor(sb, 'TR729999000000000000000002');
  ok(await pay(sb, (await order(sb, [{ variantId, quantity: 1 }])).id), 201);
  const period = await recent(sb);
  const payout = ok(await sb.api('/api/v1/payouts', { body: { vendorId, ...period } }), 201);
  assert.equal(ok(await sb.api(`/api/v1/payouts/${payout.id}/pay`, { method: 'POST' })).status, 'retry_scheduled');
  await advance(sb, 3600);
  const paid = ok(await sb.api(`/api/v1/payouts/${payout.id}`));
  assert.deepEqual([paid.status, paid.attemptCount], ['paid', 2]);
  assert.equal((await lastEvent(sb, 'payout.paid')).data.previousStatus, 'retry_scheduled');

  const other = await sellingVendor(sb, 'TR459999000000000000000003');
  ok(await pay(sb, (await order(sb, [{ variantId: other.variantId, quantity: 1 }])).id), 201);
  const second = ok(await sb.api('/api/v1/payouts', { body: { vendorId: other.vendorId, ...period } }), 201);
  assert.equal(
    ok(await sb.api(`/api/v1/payouts/${second.id}/pay`, { method: 'POST' })).lastFailureCode,
    'invalid_account_number',
  );
  ok(
    await sb.api(`/api/v1/vendors/${other.vendorId}`, {
      method: 'PATCH',
      body: { iban: 'TR330006100519786457841326' },
    }),
  );
  await advance(sb, 3600);
  assert.equal(ok(await sb.api(`/api/v1/payouts/${second.id}`)).status, 'paid');
});

test('validation, unknown references, vendor state and tenant isolation', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const bad = problem(
    await a.api('/api/v1/payouts', {
      body: { vendorId: 'ven_0002', periodStart: '2026-02-30', periodEnd: '2026-13-01' },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), ['/periodEnd', '/periodStart']);
  assert.deepEqual(
    paths(
      problem(
        await a.api('/api/v1/payouts', {
          body: { vendorId: 'ven_0002', periodStart: '2026-03-02', periodEnd: '2026-03-01' },
        }),
        422,
        'validation_failed',
      ),
    ),
    ['/periodEnd'],
  );
  problem(
    await a.api('/api/v1/payouts', {
      body: { vendorId: 'ven_nope', periodStart: '2026-03-01', periodEnd: '2026-03-31' },
    }),
    422,
    'vendor_not_found',
  );
  problem(
    await a.api('/api/v1/payouts', {
      body: { vendorId: 'ven_0003', periodStart: '2026-03-01', periodEnd: '2026-03-31' },
    }),
    409,
    'vendor_applied',
  );
  problem(
    await a.api('/api/v1/payouts', {
      body: { vendorId: 'ven_0002', periodStart: '2026-01-15', periodEnd: '2026-01-20' },
    }),
    409,
    'payout_period_overlaps',
  );
  const seeded = ok(await a.api('/api/v1/payouts/po_0002'));
  assert.deepEqual([seeded.status, seeded.amount], ['calculated', 4482]);
  const paid = ok(await a.api('/api/v1/payouts/po_0002/pay', { method: 'POST' }));
  assert.equal(paid.status, 'paid');
  assert.equal(ok(await b.api('/api/v1/payouts/po_0002')).status, 'calculated', 'seeded ids are per sandbox');
  const march = ok(
    await a.api('/api/v1/payouts', {
      body: { vendorId: 'ven_0002', periodStart: '2026-03-01', periodEnd: '2026-03-31' },
    }),
    201,
  );
  problem(await b.api(`/api/v1/payouts/${march.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/payouts/${march.id}/pay`, { method: 'POST' }), 404, 'not_found');
});
