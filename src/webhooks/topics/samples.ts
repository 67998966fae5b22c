import type { Queryable } from '../../db/database.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError } from '../../shared/problem.ts';
import type { Topic } from '../../shared/topics.ts';

type SampleBuilder = (q: Queryable, tenantId: string, now: Date) => Promise<unknown>;

async function latestOrder(q: Queryable, tenantId: string, status?: string) {
  const [row] = await q.query<{ id: string; total_minor: number; currency: string; customer_id: string }>(
    `select id, total_minor, currency, customer_id from orders where tenant_id = $1 and ($2::text is null or status = $2)
      order by created_at desc, id desc limit 1`,
    [tenantId, status ?? null],
  );
  if (!row) throw new ApiError(422, 'no_sample_data', 'This sandbox has no order to build a sample from; reset it to restore the seed.');
  return row;
}

/**
 * Builders for test webhooks (SPEC §5.4): realistic `data` made from the tenant's own
 * rows, with the same shape the real operation emits.
 */
export const sampleBuilders: Partial<Record<Topic, SampleBuilder>> = {
  'order.placed': async (q, tenantId) => {
    const o = await latestOrder(q, tenantId);
    return { orderId: o.id, total: toMajor(o.total_minor), currency: o.currency, customerId: o.customer_id };
  },
  'order.cancelled': async (q, tenantId) => {
    const o = await latestOrder(q, tenantId, 'cancelled');
    return { orderId: o.id, total: toMajor(o.total_minor), currency: o.currency, customerId: o.customer_id, reason: 'requested_by_customer' };
  },
};

export async function buildSample(q: Queryable, tenantId: string, topic: Topic, now: Date): Promise<unknown> {
  const builder = sampleBuilders[topic];
  if (!builder) throw new ApiError(422, 'unknown_topic', `No sample for ${topic} yet.`);
  return builder(q, tenantId, now);
}
