import type { Queryable } from '../db/database.ts';
import { matchesAnyPattern } from '../shared/topics.ts';
import {
  getDelivery,
  listDeliveries,
  type DeliveryDetail,
  type DeliveryFilter,
  type ListPosition,
} from './deliveries.ts';

export interface ExportFilter extends DeliveryFilter {
  /** Topic patterns (`order.*`, `*`, a topic): a delivery matching any of them. */
  topics?: string[];
  /** The newest this many matching deliveries. */
  limit: number;
}

const pageSize = 500;

/**
 * The deliveries a filter matches (the newest `limit`), oldest first, each with its attempts: what a
 * HAR file or a fixtures file holds. Details are read one at a time as the consumer asks for them.
 */
export async function* exportedDeliveries(
  q: Queryable,
  tenantId: string,
  filter: ExportFilter,
): AsyncGenerator<DeliveryDetail> {
  const { topics, limit, ...list } = filter;
  const wanted = (topic: string) => matchesAnyPattern(topics ?? [], topic);
  const ids: string[] = [];
  let after: ListPosition | undefined;
  while (ids.length < limit) {
    const page = await listDeliveries(q, tenantId, list, pageSize, after);
    for (const d of page) if (ids.length < limit && wanted(d.topic)) ids.push(d.id);
    if (page.length < pageSize) break;
    after = page[page.length - 1];
  }
  for (const id of ids.reverse()) {
    try {
      yield await getDelivery(q, tenantId, id);
    } catch {
      // Pruned or reset since it was listed: it is simply not exported.
    }
  }
}
