import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, dateOnly, isoOrNull, money, timestamp } from './common.ts';

export const payoutStatuses = ['calculated', 'retry_scheduled', 'paid', 'failed'] as const;

const base = { payoutId: z.string(), vendorId: z.string(), amount: money.describe('Net amount paid out'), currency };

export const PayoutCalculated = z.object({
  ...base,
  status: z.literal('calculated'),
  periodStart: z.string().describe('YYYY-MM-DD'),
  periodEnd: z.string().describe('YYYY-MM-DD, inclusive'),
  gross: money.describe("The vendor's lines of orders captured in the period"),
  commission: money,
  refunds: money.describe("The vendor's share of refunds in the period"),
  orderCount: z.number().int(),
});
export const PayoutPaid = z.object({
  ...base,
  status: z.literal('paid'),
  previousStatus: z.enum(['calculated', 'retry_scheduled']),
  attempt: z.number().int(),
  bankAccount: z.object({ ibanLast4: z.string() }),
  paidAt: timestamp,
});
export const PayoutFailed = z.object({
  ...base,
  status: z.enum(['retry_scheduled', 'failed']),
  attempt: z.number().int(),
  failureCode: z.string(),
  willRetry: z.boolean(),
});
export const PayoutRetryScheduled = z.object({
  ...base,
  status: z.literal('retry_scheduled'),
  attempt: z.number().int().describe('The attempt that is scheduled'),
  maxAttempts: z.number().int(),
  nextAttemptAt: timestamp,
  lastFailureCode: z.string(),
});
export const PayoutRetryGivenUp = z.object({
  ...base,
  status: z.literal('failed'),
  attempts: z.number().int(),
  lastFailureCode: z.string(),
});

export interface PayoutEventRow {
  id: string;
  vendor_id: string;
  status: string;
  period_start: Date | string;
  period_end: Date | string;
  gross_minor: number;
  commission_minor: number;
  refunds_minor: number;
  amount_minor: number;
  currency: string;
  order_count: number;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_failure_code: string | null;
  paid_at: Date | null;
}

const baseOf = (p: PayoutEventRow) => ({
  payoutId: p.id,
  vendorId: p.vendor_id,
  amount: toMajor(p.amount_minor),
  currency: p.currency,
});

export const payoutCalculatedData = (p: PayoutEventRow): z.output<typeof PayoutCalculated> => ({
  ...baseOf(p),
  status: 'calculated',
  periodStart: dateOnly(p.period_start),
  periodEnd: dateOnly(p.period_end),
  gross: toMajor(p.gross_minor),
  commission: toMajor(p.commission_minor),
  refunds: toMajor(p.refunds_minor),
  orderCount: p.order_count,
});
export const payoutPaidData = (p: PayoutEventRow, ibanLast4: string): z.output<typeof PayoutPaid> => ({
  ...baseOf(p),
  status: 'paid',
  previousStatus: p.attempt_count > 1 ? 'retry_scheduled' : 'calculated',
  attempt: p.attempt_count,
  bankAccount: { ibanLast4 },
  paidAt: isoOrNull(p.paid_at) ?? '',
});
export const payoutFailedData = (p: PayoutEventRow): z.output<typeof PayoutFailed> => ({
  ...baseOf(p),
  status: p.status === 'failed' ? 'failed' : 'retry_scheduled',
  attempt: p.attempt_count,
  failureCode: p.last_failure_code ?? 'unknown',
  willRetry: p.status === 'retry_scheduled',
});
export const payoutRetryScheduledData = (
  p: PayoutEventRow,
  maxAttempts: number,
): z.output<typeof PayoutRetryScheduled> => ({
  ...baseOf(p),
  status: 'retry_scheduled',
  attempt: p.attempt_count + 1,
  maxAttempts,
  nextAttemptAt: isoOrNull(p.next_attempt_at) ?? '',
  lastFailureCode: p.last_failure_code ?? 'unknown',
});
export const payoutRetryGivenUpData = (p: PayoutEventRow): z.output<typeof PayoutRetryGivenUp> => ({
  ...baseOf(p),
  status: 'failed',
  attempts: p.attempt_count,
  lastFailureCode: p.last_failure_code ?? 'unknown',
});
