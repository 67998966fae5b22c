import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, isoOrNull, money, timestamp } from './common.ts';

export const quoteStatuses = ['draft', 'sent', 'accepted', 'rejected', 'converted', 'expired'] as const;

const base = {
  quoteId: z.string(),
  customerId: z.string(),
  total: money,
  currency,
  validUntil: timestamp.nullable().describe('When a sent quote expires'),
  at: timestamp.describe('When this transition happened (sandbox clock)'),
};

export const QuoteSent = z.object({ ...base, status: z.literal('sent'), previousStatus: z.literal('draft') });
export const QuoteAccepted = z.object({ ...base, status: z.literal('accepted'), previousStatus: z.literal('sent') });
export const QuoteRejected = z.object({
  ...base,
  status: z.literal('rejected'),
  previousStatus: z.literal('sent'),
  reason: z.string().nullable(),
});
export const QuoteConverted = z.object({
  ...base,
  status: z.literal('converted'),
  previousStatus: z.literal('accepted'),
  orderId: z.string(),
});
export const QuoteExpired = z.object({ ...base, status: z.literal('expired'), previousStatus: z.literal('sent') });

export interface QuoteEventRow {
  id: string;
  customer_id: string;
  total_minor: number;
  currency: string;
  expires_at: Date | null;
  updated_at: Date;
  decision_reason: string | null;
  order_id: string | null;
}

const baseOf = (q: QuoteEventRow) => ({
  quoteId: q.id,
  customerId: q.customer_id,
  total: toMajor(q.total_minor),
  currency: q.currency,
  validUntil: isoOrNull(q.expires_at),
  at: q.updated_at.toISOString(),
});

export const quoteSentData = (q: QuoteEventRow): z.output<typeof QuoteSent> => ({
  ...baseOf(q),
  status: 'sent',
  previousStatus: 'draft',
});
export const quoteAcceptedData = (q: QuoteEventRow): z.output<typeof QuoteAccepted> => ({
  ...baseOf(q),
  status: 'accepted',
  previousStatus: 'sent',
});
export const quoteRejectedData = (q: QuoteEventRow): z.output<typeof QuoteRejected> => ({
  ...baseOf(q),
  status: 'rejected',
  previousStatus: 'sent',
  reason: q.decision_reason,
});
export const quoteConvertedData = (q: QuoteEventRow): z.output<typeof QuoteConverted> => ({
  ...baseOf(q),
  status: 'converted',
  previousStatus: 'accepted',
  orderId: q.order_id ?? '',
});
export const quoteExpiredData = (q: QuoteEventRow): z.output<typeof QuoteExpired> => ({
  ...baseOf(q),
  status: 'expired',
  previousStatus: 'sent',
});
