import type { Queryable } from '../../../db/database.ts';
import { ApiError } from '../../../shared/problem.ts';

export type SampleBuilder = (q: Queryable, tenantId: string, now: Date) => Promise<unknown>;

/**
 * The newest row of a table, preferring rows that match `prefer` (e.g. status = 'paid'), so a
 * sample reads like the real event whenever the sandbox has such a row.
 */
export async function newest<T>(q: Queryable, tenantId: string, table: string, prefer?: string): Promise<T> {
  const [row] = await q.query<T>(
    `select * from ${table} t where t.tenant_id = $1 order by ${prefer ? `(${prefer}) desc, ` : ''}t.created_at desc, t.id desc limit 1`,
    [tenantId],
  );
  if (!row) throw noSampleData(table);
  return row;
}

/** Only a sandbox whose seed rows were removed lacks sample data: a 422 that says how to get it back. */
export const noSampleData = (table: string) =>
  new ApiError(
    422,
    'no_sample_data',
    `This sandbox has no ${table.replace(/_/g, ' ')} to build a sample from; reset it to restore the seed.`,
  );

/** The newest row of a query, or undefined. */
export async function first<T>(q: Queryable, sql: string, params: unknown[]): Promise<T | undefined> {
  const [row] = await q.query<T>(sql, params);
  return row;
}
