import { z } from 'zod';
import { quoteStatuses } from '../../webhooks/topics/data/quotes.ts';
import { Amount } from './amounts.ts';
import { Money, text, Timestamp } from './common.ts';
import { Address, OrderItem } from './orders.ts';

export const CreateQuoteRequest = z
  .object({
    customerId: z.string().min(1).max(100),
    items: z
      .array(
        z
          .object({
            variantId: z.string().min(1).max(100),
            quantity: z.number().int().min(1).max(999),
            unitPrice: Amount.optional().describe('Negotiated price; default the catalog price'),
          })
          .strict(),
      )
      .min(1, 'At least 1 item.')
      .max(100, 'At most 100 items.')
      .superRefine((items, ctx) => {
        items.forEach((item, i) => {
          if (items.findIndex((x) => x.variantId === item.variantId) < i)
            ctx.addIssue({ code: 'custom', path: [i, 'variantId'], message: 'Listed twice; combine the quantities.' });
        });
      }),
    shippingAddress: Address,
    note: z.string().max(2000).optional(),
    validDays: z.number().int().min(1).max(90).optional().describe('How long a sent quote stays open (default 14)'),
  })
  .strict()
  .meta({ id: 'CreateQuoteRequest' });

export const RejectQuoteRequest = z
  .object({ reason: text(1000).optional() })
  .strict()
  .meta({ id: 'RejectQuoteRequest' });

export const Quote = z
  .object({
    id: z.string(),
    customerId: z.string(),
    status: z.enum(quoteStatuses),
    items: z.array(OrderItem),
    total: Money,
    currency: z.string(),
    shippingAddress: Address,
    note: z.string().nullable(),
    validDays: z.number().int(),
    sentAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable(),
    decidedAt: Timestamp.nullable(),
    decisionReason: z.string().nullable(),
    orderId: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Quote' });

export const ListQuotesQuery = z.object({
  status: z.enum(quoteStatuses).optional(),
  customerId: z.string().max(100).optional(),
});
