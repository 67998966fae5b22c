import type { Queryable } from './database.ts';

/**
 * The commit horizon: the oldest transaction still running (every transaction below it has ended).
 * A list that shows only rows of transactions below it, ordered by (xid, seq), never lets a row that
 * commits later land behind one a client has already read: whatever commits later has an xid at or
 * above the horizon, so it sorts after (newest-first: above) everything shown so far.
 */
export const belowHorizon = (alias: string) => `${alias}.xid < (select pg_snapshot_xmin(pg_current_snapshot()))`;

// A transaction held open that long (a forgotten psql session) only delays a list's newest rows.
const maxWaitMs = 2_000;
const pollMs = 2;

/**
 * Read-your-writes under the horizon: when `table` has rows of the sandbox that committed but are not
 * below the horizon yet (an older transaction is still running), waits until every transaction that was
 * running now has ended, so whatever committed before this call is listed. Usually nothing to wait for
 * (one query); on PGlite never (one connection: nothing else runs while this does).
 */
export async function awaitHorizon(q: Queryable, table: 'events' | 'deliveries', tenantId: string): Promise<void> {
  const [now] = await q.query<{ xmax: string; hidden: boolean; own: boolean }>(
    `select pg_snapshot_xmax(s)::text as xmax, pg_current_xact_id_if_assigned() is not null as own,
            exists (select 1 from ${table} x where x.tenant_id = $1 and x.xid >= pg_snapshot_xmin(s)) as hidden
       from pg_current_snapshot() s`,
    [tenantId],
  );
  // Inside a transaction that writes, the horizon cannot pass it: nothing to wait for.
  if (!now.hidden || now.own) return;
  for (const deadline = Date.now() + maxWaitMs; Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, pollMs));
    const [{ passed }] = await q.query<{ passed: boolean }>('select pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 as passed', [now.xmax]);
    if (passed) return;
  }
}
