import type { PageOptions } from '../../domain/commerce/deps.ts';
import type { Services } from '../services.ts';

/** One page of a newest-first list: fetches limit + 1 rows after the cursor and builds { data, nextCursor }. */
export async function pageOf<T extends { id: string }>(s: Services, query: { limit: number; cursor?: string }, fetch: (page: PageOptions) => Promise<T[]>) {
  const rows = await fetch({ limit: query.limit + 1, after: s.cursors.decode(query.cursor) });
  return s.cursors.page(rows, query.limit);
}
