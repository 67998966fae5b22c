import { z } from 'zod';
import { payoutStatuses } from '../../webhooks/topics/data/payouts.ts';
import { Money, Timestamp } from './common.ts';

const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date, YYYY-MM-DD.')
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'Not a calendar date.',
  );

export const CalculatePayoutRequest = z
  .object({ vendorId: z.string().min(1).max(100), periodStart: Day, periodEnd: Day.describe('Inclusive') })
  .strict()
  .superRefine((p, ctx) => {
    if (p.periodEnd < p.periodStart)
      ctx.addIssue({ code: 'custom', path: ['periodEnd'], message: 'Must not be before periodStart.' });
    else if (Date.parse(p.periodEnd) - Date.parse(p.periodStart) > 366 * 86_400_000)
      ctx.addIssue({ code: 'custom', path: ['periodEnd'], message: 'A period spans at most a year.' });
  })
  .meta({ id: 'CalculatePayoutRequest' });

export const Payout = z
  .object({
    id: z.string(),
    vendorId: z.string(),
    status: z.enum(payoutStatuses),
    periodStart: z.string(),
    periodEnd: z.string(),
    gross: Money,
    commission: Money,
    refunds: Money,
    amount: Money,
    currency: z.string(),
    orderCount: z.number().int(),
    attemptCount: z.number().int(),
    maxAttempts: z.number().int(),
    nextAttemptAt: Timestamp.nullable(),
    lastFailureCode: z.string().nullable(),
    paidAt: Timestamp.nullable(),
    attempts: z.array(
      z.object({
        number: z.number().int(),
        ibanLast4: z.string(),
        outcome: z.enum(['paid', 'failed']),
        failureCode: z.string().nullable(),
        attemptedAt: Timestamp,
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Payout' });

export const ListPayoutsQuery = z.object({
  vendorId: z.string().max(100).optional(),
  status: z.enum(payoutStatuses).optional(),
});

export const TestBankAccount = z
  .object({
    iban: z.string(),
    outcome: z.enum(['paid', 'fails', 'fails_once']),
    failureCode: z.string().nullable(),
    description: z.string(),
  })
  .meta({ id: 'TestBankAccount' });
