import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, isoOrNull, money, timestamp } from './common.ts';

export const paymentStatuses = ['requires_action', 'captured', 'partially_refunded', 'refunded', 'failed'] as const;

export const PaymentCaptured = z.object({
  paymentId: z.string(),
  orderId: z.string(),
  amount: money,
  currency,
  status: z.literal('captured'),
  previousStatus: z.enum(['requires_action']).nullable().describe('requires_action after a 3-D Secure challenge'),
  card: z.object({ brand: z.string(), last4: z.string() }),
  threeDSecure: z.boolean(),
  provider: z.string(),
  capturedAt: timestamp,
});

export const PaymentRefunded = z.object({
  paymentId: z.string(),
  orderId: z.string(),
  refundId: z.string(),
  amount: money.describe('This refund'),
  refundedTotal: money.describe('All refunds of the payment so far'),
  remaining: money.describe('What can still be refunded'),
  capturedAmount: money,
  currency,
  reason: z.string(),
  status: z.enum(['partially_refunded', 'refunded']),
  previousStatus: z.enum(['captured', 'partially_refunded']),
});

export interface PaymentEventRow {
  id: string;
  order_id: string;
  status: string;
  amount_minor: number;
  refunded_minor: number;
  currency: string;
  card_brand: string | null;
  card_last4: string | null;
  three_d_secure: boolean;
  provider: string;
  captured_at: Date | null;
}

export interface RefundEventRow {
  id: string;
  amount_minor: number;
  reason: string;
}

export const paymentCapturedData = (p: PaymentEventRow): z.output<typeof PaymentCaptured> => ({
  paymentId: p.id,
  orderId: p.order_id,
  amount: toMajor(p.amount_minor),
  currency: p.currency,
  status: 'captured',
  previousStatus: p.three_d_secure ? 'requires_action' : null,
  card: { brand: p.card_brand ?? 'unknown', last4: p.card_last4 ?? '' },
  threeDSecure: p.three_d_secure,
  provider: p.provider,
  capturedAt: isoOrNull(p.captured_at) ?? '',
});

/** `p` is the payment after the refund; its status before follows from what was refunded before. */
export const paymentRefundedData = (p: PaymentEventRow, r: RefundEventRow): z.output<typeof PaymentRefunded> => ({
  paymentId: p.id,
  orderId: p.order_id,
  refundId: r.id,
  amount: toMajor(r.amount_minor),
  refundedTotal: toMajor(p.refunded_minor),
  remaining: toMajor(p.amount_minor - p.refunded_minor),
  capturedAmount: toMajor(p.amount_minor),
  currency: p.currency,
  reason: r.reason,
  status: p.refunded_minor >= p.amount_minor ? 'refunded' : 'partially_refunded',
  previousStatus: p.refunded_minor - r.amount_minor > 0 ? 'partially_refunded' : 'captured',
});
