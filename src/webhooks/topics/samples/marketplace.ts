import { maxPayoutAttempts } from '../../../shared/payout-schedule.ts';
import { buyboxWinnerChangedData, type WinnerEventRow } from '../data/buybox.ts';
import {
  payoutCalculatedData,
  payoutFailedData,
  payoutPaidData,
  payoutRetryGivenUpData,
  payoutRetryScheduledData,
  type PayoutEventRow,
} from '../data/payouts.ts';
import {
  vendorAppliedData,
  vendorApprovedData,
  vendorRejectedData,
  vendorSuspendedData,
  type VendorEventRow,
} from '../data/vendors.ts';
import { first, newest, noSampleData, type SampleBuilder } from './rows.ts';

type Q = Parameters<SampleBuilder>[0];

const vendor = (q: Q, tenantId: string, status: string) =>
  newest<VendorEventRow>(q, tenantId, 'vendors', `t.status = '${status}'`);

/** A payout as if its transfer had failed `attempts` times (the bank's answer from the test accounts). */
async function failedPayout(q: Q, tenantId: string, attempts: number, now: Date): Promise<PayoutEventRow> {
  const p = await newest<PayoutEventRow>(q, tenantId, 'payouts', `t.last_failure_code is not null`);
  return {
    ...p,
    attempt_count: Math.max(p.attempt_count, attempts),
    last_failure_code: p.last_failure_code ?? 'account_closed',
    status: attempts >= maxPayoutAttempts ? 'failed' : 'retry_scheduled',
    next_attempt_at: p.next_attempt_at ?? new Date(now.getTime() + 3600_000),
  };
}

/** Marketplace samples: vendors, payouts and the buybox. */
export const marketplaceSamples = {
  'vendor.applied': async (q, tenantId) => vendorAppliedData(await vendor(q, tenantId, 'applied')),
  'vendor.approved': async (q, tenantId) => vendorApprovedData(await vendor(q, tenantId, 'approved'), 'applied'),
  'vendor.rejected': async (q, tenantId) => {
    const v = await vendor(q, tenantId, 'rejected');
    return vendorRejectedData({ ...v, status_reason: v.status_reason ?? 'Vergi levhası eksik.' });
  },
  'vendor.suspended': async (q, tenantId) => {
    const v = await vendor(q, tenantId, 'suspended');
    const [{ count }] = await q.query<{ count: number }>(
      'select count(*)::int as count from buybox_winners where tenant_id = $1 and vendor_id = $2',
      [tenantId, v.id],
    );
    return vendorSuspendedData({ ...v, status_reason: v.status_reason ?? 'Geciken kargolar.' }, count);
  },
  'payout.calculated': async (q, tenantId) =>
    payoutCalculatedData(await newest<PayoutEventRow>(q, tenantId, 'payouts', `t.status = 'calculated'`)),
  'payout.paid': async (q, tenantId, now) => {
    const p = await newest<PayoutEventRow>(q, tenantId, 'payouts', `t.status = 'paid'`);
    const account = await first<{ iban: string | null }>(
      q,
      'select iban from vendors where tenant_id = $1 and id = $2',
      [tenantId, p.vendor_id],
    );
    return payoutPaidData(
      { ...p, attempt_count: Math.max(p.attempt_count, 1), paid_at: p.paid_at ?? now },
      account?.iban?.slice(-4) ?? '',
    );
  },
  'payout.failed': async (q, tenantId, now) => payoutFailedData(await failedPayout(q, tenantId, 1, now)),
  'payout.retry.scheduled': async (q, tenantId, now) =>
    payoutRetryScheduledData(await failedPayout(q, tenantId, 1, now), maxPayoutAttempts),
  'payout.retry.given_up': async (q, tenantId, now) =>
    payoutRetryGivenUpData(await failedPayout(q, tenantId, maxPayoutAttempts, now)),
  'buybox.winner_changed': async (q, tenantId) => {
    const w = await first<WinnerEventRow & { variant_id: string }>(
      q,
      'select * from buybox_winners where tenant_id = $1 order by updated_at desc, variant_id desc limit 1',
      [tenantId],
    );
    if (!w) throw noSampleData('buybox_winners');
    const [variant] = await q.query<{ id: string; product_id: string }>(
      'select id, product_id from variants where tenant_id = $1 and id = $2',
      [tenantId, w.variant_id],
    );
    // The runner-up as the winner it displaced.
    const previous = await first<WinnerEventRow>(
      q,
      `select id as offer_id, vendor_id, price_minor, shipping_minor, stock from vendor_offers
           where tenant_id = $1 and variant_id = $2 and id <> $3 order by price_minor + shipping_minor, stock desc, id limit 1`,
      [tenantId, w.variant_id, w.offer_id],
    );
    return buyboxWinnerChangedData(variant, previous ?? null, w, 'offer_updated');
  },
} satisfies Record<string, SampleBuilder>;
