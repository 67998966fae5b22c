import { constantTimeEqual } from '../../shared/hmac.ts';
import type { DomainDeps } from '../deps.ts';
import { notFound, illegalTransition } from '../../shared/problem.ts';
import { capture, getPayment, type Payment } from './payments.ts';

export type ChallengeOutcome = 'approve' | 'fail';

/**
 * Completes a 3-D Secure challenge: approve captures the payment (payment.captured, the order
 * is paid); fail declines it with authentication_failed.
 */
export async function decideChallenge(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  outcome: ChallengeOutcome,
  baseUrl: string,
): Promise<Payment> {
  await deps.db.transaction(async (tx) => {
    const [p] = await tx.query<{ status: string; order_id: string }>(
      'select status, order_id from payments where tenant_id = $1 and id = $2 for update',
      [tenantId, id],
    );
    if (!p) throw notFound('payment');
    if (p.status !== 'requires_action')
      throw illegalTransition('payment', p.status, 'complete the 3-D Secure challenge of');
    const now = deps.clock.now(tenantId);
    const [order] = await tx.query<{ status: string }>(
      'select status from orders where tenant_id = $1 and id = $2 for update',
      [tenantId, p.order_id],
    );
    if (outcome === 'approve' && order?.status !== 'placed')
      throw illegalTransition('order', order?.status ?? 'missing', 'pay');
    if (outcome === 'approve') return capture(tx, deps, tenantId, id, now);
    await tx.query(
      `update payments set status = 'failed', decline_code = 'authentication_failed', challenge_token = null, updated_at = $3
        where tenant_id = $1 and id = $2`,
      [tenantId, id, now],
    );
  });
  return getPayment(deps.db, tenantId, id, baseUrl);
}

/** The challenge page's view of a payment: found by id and its capability token, in any sandbox. */
export async function findChallenge(
  deps: DomainDeps,
  id: string,
  token: string,
): Promise<{ tenantId: string; amountMinor: number; currency: string; last4: string; returnUrl: string | null }> {
  const [row] = await deps.db.query<{
    tenant_id: string;
    challenge_token: string;
    amount_minor: number;
    currency: string;
    card_last4: string;
    return_url: string | null;
  }>(
    `select tenant_id, challenge_token, amount_minor, currency, card_last4, return_url from payments
      where challenge_token = $1 and id = $2 and status = 'requires_action'`,
    [token, id],
  );
  if (!row || !constantTimeEqual(row.challenge_token, token)) throw notFound('3-D Secure challenge');
  return {
    tenantId: row.tenant_id,
    amountMinor: row.amount_minor,
    currency: row.currency,
    last4: row.card_last4,
    returnUrl: row.return_url,
  };
}
