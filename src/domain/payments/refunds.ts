import { newId } from '../../shared/ids.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError, notFound, illegalTransition } from '../../shared/problem.ts';
import { paymentRefundedData } from '../../webhooks/topics/data/payments.ts';
import type { DomainDeps } from '../deps.ts';
import { getPayment, type Payment, type PaymentRow } from './payments.ts';

export const refundReasons = ['requested_by_customer', 'duplicate', 'fraudulent', 'other'] as const;

const refundable = new Set(['captured', 'partially_refunded']);

/**
 * Refunds all or part of a captured payment (payment.refunded). More than what remains is a 422;
 * a test card whose refunds fail records a failed refund and answers 402 refund_failed.
 */
export async function refundPayment(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  input: { amountMinor?: number; reason?: (typeof refundReasons)[number] },
  baseUrl: string,
): Promise<Payment> {
  const refundId = newId('re');
  const failure = await deps.db.transaction(async (tx) => {
    const [p] = await tx.query<PaymentRow>('select * from payments where tenant_id = $1 and id = $2 for update', [
      tenantId,
      id,
    ]);
    if (!p) throw notFound('payment');
    if (!refundable.has(p.status)) throw illegalTransition('payment', p.status, 'refund');
    const remaining = p.amount_minor - p.refunded_minor;
    const amount = input.amountMinor ?? remaining;
    if (amount > remaining) {
      throw new ApiError(
        422,
        'amount_exceeds_refundable',
        `Only ${toMajor(remaining)} ${p.currency} of this payment can still be refunded.`,
        {
          errors: [{ path: '/amount', message: `At most ${toMajor(remaining)}.` }],
          extra: { refundable: toMajor(remaining) },
        },
      );
    }
    const now = deps.clock.now(tenantId);
    const reason = input.reason ?? 'requested_by_customer';
    const failed = p.refund_behavior !== 'succeeds';
    const [refund] = await tx.query<{ id: string; amount_minor: number; reason: string }>(
      `insert into refunds (tenant_id, id, payment_id, amount_minor, currency, status, reason, failure_reason, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
      [
        tenantId,
        refundId,
        id,
        amount,
        p.currency,
        failed ? 'failed' : 'succeeded',
        reason,
        failed ? 'declined_by_issuer' : null,
        now,
      ],
    );
    if (failed) return 'declined_by_issuer';
    const [after] = await tx.query<PaymentRow>(
      `update payments set refunded_minor = refunded_minor + $3,
              status = case when refunded_minor + $3 >= amount_minor then 'refunded' else 'partially_refunded' end, updated_at = $4
        where tenant_id = $1 and id = $2 returning *`,
      [tenantId, id, amount, now],
    );
    await deps.events.emit(tx, tenantId, 'payment.refunded', paymentRefundedData(after, refund), { occurredAt: now });
    return null;
  });
  if (failure) {
    throw new ApiError(402, 'refund_failed', `The card issuer declined the refund (${failure}).`, {
      extra: { refundId, failureReason: failure },
    });
  }
  return getPayment(deps.db, tenantId, id, baseUrl);
}
