import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { maxPayoutAttempts, payoutRetryDelaysMs } from '../../shared/payout-schedule.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import {
  payoutCalculatedData,
  payoutFailedData,
  payoutPaidData,
  payoutRetryGivenUpData,
  payoutRetryScheduledData,
  type PayoutEventRow,
} from '../../webhooks/topics/data/payouts.ts';
import { dateOnly } from '../../webhooks/topics/data/common.ts';
import {
  iso,
  keyset,
  keysetParams,
  scheduleAfterCommit,
  type CommerceDeps,
  type PageOptions,
} from '../commerce/deps.ts';
import { columnJobHandler } from '../commerce/jobs.ts';
import type { DomainDeps } from '../deps.ts';
import { bankTransfer } from './test-bank.ts';
import { vendorEarnings } from './earnings.ts';

export const payoutRetryJob = 'payout.retry';

interface PayoutRow extends PayoutEventRow {
  created_at: Date;
  updated_at: Date;
  attempts?:
    { number: number; ibanLast4: string; outcome: string; failureCode: string | null; attemptedAt: string }[] | null;
}

const select = `
  select p.*, (select json_agg(json_build_object('number', a.number, 'ibanLast4', a.iban_last4, 'outcome', a.outcome, 'failureCode', a.failure_code,
                 'attemptedAt', to_char(a.attempted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by a.number)
                 from payout_attempts a where a.tenant_id = p.tenant_id and a.payout_id = p.id) as attempts
    from payouts p`;

const toPayout = (p: PayoutRow) => ({
  id: p.id,
  vendorId: p.vendor_id,
  status: p.status,
  periodStart: dateOnly(p.period_start),
  periodEnd: dateOnly(p.period_end),
  gross: toMajor(p.gross_minor),
  commission: toMajor(p.commission_minor),
  refunds: toMajor(p.refunds_minor),
  amount: toMajor(p.amount_minor),
  currency: p.currency,
  orderCount: p.order_count,
  attemptCount: p.attempt_count,
  maxAttempts: maxPayoutAttempts,
  nextAttemptAt: iso(p.next_attempt_at),
  lastFailureCode: p.last_failure_code,
  paidAt: iso(p.paid_at),
  attempts: p.attempts ?? [],
  createdAt: p.created_at.toISOString(),
  updatedAt: p.updated_at.toISOString(),
});

export type Payout = ReturnType<typeof toPayout>;

/** One payout with its transfer attempts. */
export async function getPayout(q: Queryable, tenantId: string, id: string): Promise<Payout> {
  const [row] = await q.query<PayoutRow>(`${select} where p.tenant_id = $1 and p.id = $2`, [tenantId, id]);
  if (!row) throw notFound('payout');
  return toPayout(row);
}

/** Payouts, newest first, by vendor or status. */
export async function listPayouts(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { vendorId?: string; status?: string },
): Promise<Payout[]> {
  const k = keyset('p', 5);
  const rows = await q.query<PayoutRow>(
    `${select} where p.tenant_id = $1 and ($3::text is null or p.vendor_id = $3) and ($4::text is null or p.status = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.vendorId ?? null, page.status ?? null, ...keysetParams(page)],
  );
  return rows.map(toPayout);
}

/**
 * Calculates a vendor's payout for a period of whole UTC days (periodEnd inclusive): its lines of
 * orders captured in the period, minus commission and its share of refunds made in the period.
 * Periods of one vendor never overlap, so nothing is paid twice. Emits payout.calculated.
 */
export async function calculatePayout(
  deps: DomainDeps,
  tenantId: string,
  input: { vendorId: string; periodStart: string; periodEnd: string },
): Promise<Payout> {
  const id = newId('po');
  await deps.db.transaction(async (tx) => {
    const [vendor] = await tx.query<{ status: string; commission_bps: number }>(
      'select status, commission_bps from vendors where tenant_id = $1 and id = $2 for update',
      [tenantId, input.vendorId],
    );
    if (!vendor)
      throw unknownReference('vendor_not_found', '/vendorId', `No vendor ${input.vendorId} in this sandbox.`);
    if (vendor.status === 'applied' || vendor.status === 'rejected')
      throw illegalTransition('vendor', vendor.status, 'pay out to');
    const [overlap] = await tx.query<{ id: string }>(
      `select id from payouts where tenant_id = $1 and vendor_id = $2 and status <> 'failed'
          and period_start <= $4::date and period_end >= $3::date limit 1`,
      [tenantId, input.vendorId, input.periodStart, input.periodEnd],
    );
    if (overlap) {
      throw new ApiError(409, 'payout_period_overlaps', `Payout ${overlap.id} already covers part of this period.`, {
        extra: { payoutId: overlap.id },
      });
    }
    const earned = await vendorEarnings(tx, tenantId, input.vendorId, input.periodStart, input.periodEnd);
    // Half-up in integer minor units: no binary floating point touches money.
    const commission = Math.floor((earned.grossMinor * vendor.commission_bps + 5000) / 10000);
    const amount = Math.max(0, earned.grossMinor - commission - earned.refundsMinor);
    const now = deps.clock.now(tenantId);
    const [row] = await tx.query<PayoutRow>(
      `insert into payouts (tenant_id, id, vendor_id, period_start, period_end, status, gross_minor, commission_minor, refunds_minor, amount_minor,
                            currency, order_count, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 'calculated', $6, $7, $8, $9, 'TRY', $10, $11, $11) returning *`,
      [
        tenantId,
        id,
        input.vendorId,
        input.periodStart,
        input.periodEnd,
        earned.grossMinor,
        commission,
        earned.refundsMinor,
        amount,
        earned.orderCount,
        now,
      ],
    );
    await deps.events.emit(tx, tenantId, 'payout.calculated', payoutCalculatedData(row), { occurredAt: now });
  });
  return getPayout(deps.db, tenantId, id);
}

/**
 * One transfer attempt to the vendor's bank account as of `at`: paid (payout.paid), or failed
 * (payout.failed) and then either retried later (payout.retry.scheduled) or given up
 * (payout.retry.given_up) after the last attempt.
 */
async function attempt(tx: Tx, deps: CommerceDeps, tenantId: string, payoutId: string, at: Date): Promise<void> {
  const [p] = await tx.query<PayoutRow & { iban: string | null }>(
    `select p.*, v.iban from payouts p join vendors v on v.tenant_id = p.tenant_id and v.id = p.vendor_id where p.tenant_id = $1 and p.id = $2`,
    [tenantId, payoutId],
  );
  const number = p.attempt_count + 1;
  const result = bankTransfer(p.iban, number);
  const ibanLast4 = p.iban?.slice(-4) ?? '';
  const failureCode = result.ok ? null : result.failureCode;
  await tx.query(
    `insert into payout_attempts (tenant_id, payout_id, number, iban_last4, outcome, failure_code, attempted_at) values ($1, $2, $3, $4, $5, $6, $7)`,
    [tenantId, payoutId, number, ibanLast4, result.ok ? 'paid' : 'failed', failureCode, at],
  );
  const retryAt =
    !result.ok && number < maxPayoutAttempts ? new Date(at.getTime() + payoutRetryDelaysMs[number - 1]) : null;
  const status = result.ok ? 'paid' : retryAt ? 'retry_scheduled' : 'failed';
  const [after] = await tx.query<PayoutRow>(
    `update payouts set status = $3, attempt_count = $4, next_attempt_at = $5, last_failure_code = coalesce($6, last_failure_code),
            paid_at = $7, updated_at = $8
      where tenant_id = $1 and id = $2 returning *`,
    [tenantId, payoutId, status, number, retryAt, failureCode, result.ok ? at : null, at],
  );
  const emit = (topic: Parameters<typeof deps.events.emit>[2], data: unknown) =>
    deps.events.emit(tx, tenantId, topic, data, { occurredAt: at });
  if (result.ok) return void (await emit('payout.paid', payoutPaidData(after, ibanLast4)));
  await emit('payout.failed', payoutFailedData(after));
  if (retryAt) {
    await emit('payout.retry.scheduled', payoutRetryScheduledData(after, maxPayoutAttempts));
    await scheduleAfterCommit(tx, deps, payoutRetryJob, tenantId, payoutId, retryAt);
  } else {
    await emit('payout.retry.given_up', payoutRetryGivenUpData(after));
  }
}

/** calculated → paid or failed-with-retries; the bank's answer is the test account's (seed/test-bank-accounts.json). */
export async function payPayout(deps: CommerceDeps, tenantId: string, id: string): Promise<Payout> {
  await deps.db.transaction(async (tx) => {
    const [p] = await tx.query<{ status: string }>(
      'select status from payouts where tenant_id = $1 and id = $2 for update',
      [tenantId, id],
    );
    if (!p) throw notFound('payout');
    if (p.status !== 'calculated') throw illegalTransition('payout', p.status, 'pay');
    await attempt(tx, deps, tenantId, id, deps.clock.now(tenantId));
  });
  return getPayout(deps.db, tenantId, id);
}

/** Scheduled retries run at next_attempt_at on the sandbox clock. */
export const payoutRetryHandler = (deps: CommerceDeps) =>
  columnJobHandler(deps, {
    kind: payoutRetryJob,
    table: 'payouts',
    column: 'next_attempt_at',
    pending: `status = 'retry_scheduled'`,
    run: (tx, tenantId, id, asOf) => attempt(tx, deps, tenantId, id, asOf),
  });
