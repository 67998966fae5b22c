import type { PageOptions } from '../../domain/commerce/deps.ts';
import type { CursorCodec } from '../pagination.ts';
import type { Services } from '../services.ts';

/** One page of a newest-first list: fetches limit + 1 rows after the cursor and builds { data, nextCursor }. */
export async function pageOf<T extends { id: string }>(s: Services, query: { limit: number; cursor?: string }, fetch: (page: PageOptions) => Promise<T[]>) {
  const rows = await fetch({ limit: query.limit + 1, after: s.cursors.decode(query.cursor) });
  return s.cursors.page(rows, query.limit);
}

/** A page of rows ordered by their insertion sequence; the sequence stays internal. */
export function seqPage<T extends { id: string; seq: number }>(cursors: CursorCodec, rows: T[], limit: number) {
  const page = cursors.page(rows, limit, (row) => row.seq);
  return { data: page.data.map(({ seq: _seq, ...row }) => row), nextCursor: page.nextCursor };
}
