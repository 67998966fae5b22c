import type { Context } from 'koa';
import type { PageOptions } from '../../domain/commerce/deps.ts';
import type { Principal } from '../auth/principal.ts';
import type { ListCursors } from '../pagination.ts';
import type { Services } from '../services.ts';

/** What a list handler gets: its query (limit, cursor) and who asked on which path. */
export interface ListInput {
  query: { limit: number; cursor?: string };
  principal: Principal;
  ctx: Context;
}

/**
 * One page of a newest-first list: fetches limit + 1 rows after the cursor and builds { data, nextCursor }. `timeOf`
 * names the row's field its created_at is shown as (createdAt unless said).
 */
export async function pageOf<T extends { id: string }>(
  s: Services,
  input: ListInput,
  fetch: (page: PageOptions) => Promise<T[]>,
  timeOf?: (row: T) => string,
) {
  const cursors = s.cursors.of(input, 'time');
  const rows = await fetch({ limit: input.query.limit + 1, after: cursors.decode(input.query.cursor) });
  return cursors.page(rows, input.query.limit, timeOf);
}

/** A page of rows ordered by their insertion sequence; the sequence stays internal. */
export function seqPage<T extends { id: string; seq: number }>(cursors: ListCursors, rows: T[], limit: number) {
  const page = cursors.page(rows, limit, (row) => row.seq);
  return { data: page.data.map(({ seq: _seq, ...row }) => row), nextCursor: page.nextCursor };
}

/**
 * A page of rows ordered by (commit position, sequence) (src/webhooks/deliveries.ts ListPosition); both stay internal.
 */
export function commitPage<T extends { id: string; seq: number; position: number }>(
  cursors: ListCursors,
  rows: T[],
  limit: number,
) {
  const page = cursors.page(rows, limit, (row) => `${row.position}.${row.seq}`);
  return { data: page.data.map(({ seq: _seq, position: _position, ...row }) => row), nextCursor: page.nextCursor };
}
