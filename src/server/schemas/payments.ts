import { z } from 'zod';
import { paymentStatuses } from '../../webhooks/topics/data/payments.ts';
import { luhnValid } from '../../domain/payments/test-cards.ts';
import { refundReasons } from '../../domain/payments/refunds.ts';
import { httpUrl } from './webhooks.ts';
import { PositiveAmount } from './amounts.ts';
import { Money, Timestamp } from './common.ts';

export { TestCard } from '../../shared/schemas/payments.ts';

const CardNumber = z
  .string()
  .transform((s) => s.replace(/[\s-]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{12,19}$/, 'Must be 12–19 digits.')
      .refine(luhnValid, 'Fails the Luhn check; see GET /api/v1/payments/test-cards.'),
  );

export const PayRequest = z
  .object({
    orderId: z.string().min(1).max(100),
    card: z
      .object({
        number: CardNumber,
        expMonth: z.number().int().min(1).max(12),
        expYear: z.number().int().min(2000).max(2100),
        cvc: z.string().regex(/^\d{3,4}$/, 'Must be 3 or 4 digits.'),
        holderName: z.string().max(100).optional(),
      })
      .strict()
      .superRefine((card, ctx) => {
        const amex = /^3[47]/.test(card.number);
        if (card.cvc.length !== (amex ? 4 : 3))
          ctx.addIssue({
            code: 'custom',
            path: ['cvc'],
            message: amex ? 'American Express CVCs have 4 digits.' : 'Must be 3 digits.',
          });
      }),
    returnUrl: httpUrl.optional().describe('Where the 3-D Secure page sends the shopper after deciding'),
  })
  .strict()
  .meta({ id: 'PayRequest' });

export const ChallengeRequest = z
  .object({ outcome: z.enum(['approve', 'fail']).describe('What the shopper does on the 3-D Secure page') })
  .strict()
  .meta({ id: 'ThreeDSecureChallengeRequest' });

export const RefundRequest = z
  .object({
    amount: PositiveAmount.optional().describe('Default: everything not yet refunded'),
    reason: z.enum(refundReasons).optional(),
  })
  .strict()
  .meta({ id: 'RefundRequest' });

export const Payment = z
  .object({
    id: z.string(),
    orderId: z.string(),
    status: z.enum(paymentStatuses),
    amount: Money,
    refunded: Money,
    currency: z.string(),
    card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
    provider: z.string(),
    threeDSecure: z.boolean(),
    declineCode: z.string().nullable(),
    nextAction: z
      .object({ type: z.literal('three_d_secure'), url: z.string() })
      .nullable()
      .describe('Open url to approve or fail the challenge'),
    refunds: z.array(
      z.object({
        id: z.string(),
        amount: Money,
        status: z.enum(['succeeded', 'failed']),
        reason: z.string(),
        failureReason: z.string().nullable(),
        createdAt: Timestamp,
      }),
    ),
    capturedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Payment' });

export const ListPaymentsQuery = z.object({
  orderId: z.string().max(100).optional(),
  status: z.enum(paymentStatuses).optional(),
});
