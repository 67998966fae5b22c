import type { Queryable, Tx } from '../../db/database.ts';
import { newId, randomString } from '../../shared/ids.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import { paymentCapturedData, type PaymentEventRow } from '../../webhooks/topics/data/payments.ts';
import { iso, keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';
import { findTestCard } from './test-cards.ts';

export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface PaymentRow extends PaymentEventRow {
  decline_code: string | null;
  challenge_token: string | null;
  return_url: string | null;
  refund_behavior: string;
  created_at: Date;
  updated_at: Date;
  refunds?:
    | { id: string; amount: number; status: string; reason: string; failureReason: string | null; createdAt: string }[]
    | null;
}

const select = `
  select p.*, (select json_agg(json_build_object('id', r.id, 'amount', r.amount_minor, 'status', r.status, 'reason', r.reason,
                 'failureReason', r.failure_reason, 'createdAt', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                 order by r.created_at, r.id) from refunds r where r.tenant_id = p.tenant_id and r.payment_id = p.id) as refunds
    from payments p`;

/** The API shape; `baseUrl` makes the 3-D Secure challenge link absolute. */
const toPayment = (p: PaymentRow, baseUrl: string) => ({
  id: p.id,
  orderId: p.order_id,
  status: p.status,
  amount: toMajor(p.amount_minor),
  refunded: toMajor(p.refunded_minor),
  currency: p.currency,
  card: p.card_brand ? { brand: p.card_brand, last4: p.card_last4 } : null,
  provider: p.provider,
  threeDSecure: p.three_d_secure,
  declineCode: p.decline_code,
  nextAction:
    p.status === 'requires_action' && p.challenge_token
      ? { type: 'three_d_secure' as const, url: `${baseUrl}/3ds/${p.id}?token=${p.challenge_token}` }
      : null,
  refunds: (p.refunds ?? []).map((r) => ({ ...r, amount: toMajor(r.amount) })),
  capturedAt: iso(p.captured_at),
  createdAt: p.created_at.toISOString(),
  updatedAt: p.updated_at.toISOString(),
});

export type Payment = ReturnType<typeof toPayment>;

/** One payment with its refunds. */
export async function getPayment(q: Queryable, tenantId: string, id: string, baseUrl: string): Promise<Payment> {
  const [row] = await q.query<PaymentRow>(`${select} where p.tenant_id = $1 and p.id = $2`, [tenantId, id]);
  if (!row) throw notFound('payment');
  return toPayment(row, baseUrl);
}

/** Payments, newest first, by order or status. */
export async function listPayments(
  q: Queryable,
  tenantId: string,
  baseUrl: string,
  page: PageOptions & { orderId?: string; status?: string },
): Promise<Payment[]> {
  const k = keyset('p', 5);
  const rows = await q.query<PaymentRow>(
    `${select} where p.tenant_id = $1 and ($3::text is null or p.order_id = $3) and ($4::text is null or p.status = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.orderId ?? null, page.status ?? null, ...keysetParams(page)],
  );
  return rows.map((r) => toPayment(r, baseUrl));
}

/** Captures a payment: the order is paid and payment.captured goes out, in the caller's transaction. */
export async function capture(tx: Tx, deps: DomainDeps, tenantId: string, id: string, now: Date): Promise<void> {
  const [p] = await tx.query<PaymentRow>(
    `update payments set status = 'captured', captured_at = $3, challenge_token = null, updated_at = $3
      where tenant_id = $1 and id = $2 returning *`,
    [tenantId, id, now],
  );
  await tx.query(`update orders set status = 'paid', updated_at = $3 where tenant_id = $1 and id = $2`, [
    tenantId,
    p.order_id,
    now,
  ]);
  await deps.events.emit(tx, tenantId, 'payment.captured', paymentCapturedData(p), { occurredAt: now });
}

/** Test cards decide; any other (Luhn-valid) number is declined, as real cards are in a test mode. */
function cardOutcome(card: CardInput, now: Date) {
  const test = findTestCard(card.number);
  const expired = card.expYear * 12 + card.expMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
  const declineCode = !test
    ? 'test_mode_live_card'
    : expired
      ? 'expired_card'
      : test.outcome === 'declined'
        ? test.declineCode
        : null;
  return { test, declineCode, outcome: declineCode ? 'failed' : test!.outcome };
}

/**
 * Pays a placed order with a card: captured (the order is paid), requires_action (a 3-D Secure
 * challenge waits at nextAction.url), or declined — a 402 card_declined whose declineCode says
 * why; the failed attempt is kept as a payment.
 */
export async function payOrder(
  deps: DomainDeps,
  tenantId: string,
  input: { orderId: string; card: CardInput; returnUrl?: string },
  baseUrl: string,
): Promise<Payment> {
  const id = newId('pay');
  const declined = await deps.db.transaction(async (tx) => {
    const [order] = await tx.query<{ status: string; total_minor: number; currency: string }>(
      'select status, total_minor, currency from orders where tenant_id = $1 and id = $2 for update',
      [tenantId, input.orderId],
    );
    if (!order) throw unknownReference('order_not_found', '/orderId', `No order ${input.orderId} in this sandbox.`);
    if (order.status !== 'placed') throw illegalTransition('order', order.status, 'pay');
    const [waiting] = await tx.query<{ id: string }>(
      `select id from payments where tenant_id = $1 and order_id = $2 and status = 'requires_action'`,
      [tenantId, input.orderId],
    );
    if (waiting) {
      throw new ApiError(
        409,
        'payment_requires_action',
        `Payment ${waiting.id} of this order waits for its 3-D Secure challenge; complete or fail it first.`,
        {
          extra: { currentStatus: 'requires_action', paymentId: waiting.id },
        },
      );
    }
    const now = deps.clock.now(tenantId);
    const { test, declineCode, outcome } = cardOutcome(input.card, now);
    const status = outcome === 'captured' ? 'processing' : outcome;
    await tx.query(
      `insert into payments (tenant_id, id, order_id, status, amount_minor, refunded_minor, currency, card_brand, card_last4, decline_code,
                             provider, three_d_secure, challenge_token, return_url, refund_behavior, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 0, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
      [
        tenantId,
        id,
        input.orderId,
        status,
        order.total_minor,
        order.currency,
        test?.brand ?? 'unknown',
        input.card.number.slice(-4),
        declineCode,
        test?.provider ?? 'sandbay',
        status === 'requires_action',
        status === 'requires_action' ? randomString(32) : null,
        input.returnUrl ?? null,
        test?.refund ?? 'succeeds',
        now,
      ],
    );
    if (status === 'processing') await capture(tx, deps, tenantId, id, now);
    return declineCode;
  });
  if (declined) {
    throw new ApiError(402, 'card_declined', `The card was declined (${declined}).`, {
      extra: { declineCode: declined, paymentId: id },
    });
  }
  return getPayment(deps.db, tenantId, id, baseUrl);
}
