import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { advance, eventTopics, ok, sendExpiringQuote } from './helpers.ts';

const engine = useEngine();

const seededPaths = [
  '/api/v1/companies/com_0001',
  '/api/v1/customers/cus_0044',
  '/api/v1/approval-requests/apr_0001',
  '/api/v1/quotes/quo_0005',
  '/api/v1/vendors/ven_0001',
  '/api/v1/offers/ofr_0001',
  '/api/v1/variants/var_0001/buybox',
  '/api/v1/payments/pay_0121',
  '/api/v1/payouts/po_0001',
  '/api/v1/reports/rep_0001/runs/rrn_0001',
  '/api/v1/staff/stf_0004',
  '/api/v1/impersonations/imp_0001',
  '/api/v1/consents/cns_0001',
];

test('the commerce seed is deterministic, fills every area, and neither emits events nor schedules jobs', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  for (const path of seededPaths) assert.deepEqual(ok(await a.api(path)), ok(await b.api(path)), path);
  const { counts } = ok(await a.api('/api/v1/sandbox'));
  assert.deepEqual(
    [
      counts.companies,
      counts.quotes,
      counts.approvalRequests,
      counts.offers,
      counts.payouts,
      counts.savedReports,
      counts.staff,
      counts.consents,
    ],
    [2, 5, 3, 32, 2, 2, 4, 20],
  );
  assert.deepEqual(await eventTopics(a), []);
  assert.deepEqual(engine.running.services.scheduler.pending(a.id), []);
  const quotes = ok(await a.api('/api/v1/quotes?limit=100'))
    .data.map((q: any) => q.status)
    .sort();
  assert.deepEqual(quotes, ['accepted', 'converted', 'draft', 'expired', 'rejected']);
  assert.equal(ok(await a.api('/api/v1/payments/pay_0121')).status, 'partially_refunded');
});

test('a reset drops pending expiries with the data they belonged to', async () => {
  const sb = await createSandbox(engine.url);
  const q = await sendExpiringQuote(sb);
  assert.equal(engine.running.services.scheduler.pending(sb.id).filter((j) => j.kind === 'quote.expire').length, 1);
  ok(await sb.api('/api/v1/sandbox/reset', { method: 'POST' }));
  assert.deepEqual(engine.running.services.scheduler.pending(sb.id), []);
  await advance(sb, 2 * 86_400);
  assert.deepEqual(await eventTopics(sb), []);
  assert.equal((await sb.api(`/api/v1/quotes/${q.id}`)).status, 404);
});
