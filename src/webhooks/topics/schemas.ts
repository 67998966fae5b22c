import { z } from 'zod';
import type { Topic } from '../../shared/topics.ts';

const money = z.number().describe('Amount with at most 2 decimals');
const currency = z.string().describe('ISO 4217, default TRY');

/**
 * The `data` of each topic's envelope: one zod schema per topic, used for the OpenAPI
 * document's `webhooks` section, GET /api/v1/webhooks/topics and the tests that check
 * every emitted payload. order.placed is fixed by SPEC §5.2.
 */
export const topicDataSchemas: Partial<Record<Topic, z.ZodType>> = {
  'order.placed': z.object({ orderId: z.string(), total: money, currency, customerId: z.string() }),
  'order.cancelled': z.object({
    orderId: z.string(), total: money, currency, customerId: z.string(),
    reason: z.enum(['requested_by_customer', 'out_of_stock', 'fraudulent', 'other']),
  }),
};
