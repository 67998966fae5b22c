import type { CursorCodec } from '../pagination.ts';

/** A page of rows ordered by their insertion sequence; the sequence stays internal. */
export function seqPage<T extends { id: string; seq: number }>(cursors: CursorCodec, rows: T[], limit: number) {
  const page = cursors.page(rows, limit, (row) => row.seq);
  return { data: page.data.map(({ seq: _seq, ...row }) => row), nextCursor: page.nextCursor };
}
