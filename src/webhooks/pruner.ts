import type { Db } from '../db/database.ts';
import { noLiveLease } from './leases.ts';

/** A sandbox is pruned once this many deliveries (or its cap, if lower) have committed since its last prune. */
const pruneEvery = 500;

/**
 * Keeps each sandbox at its newest N deliveries (SPEC §3): every few hundred new ones, older finished
 * deliveries, their attempts and events left without deliveries go. The count is the database's
 * (list_counters: deliveries committed, and that count at the last prune, kept at COMMIT by migration
 * 075's trigger), so it is one count for every engine, and nothing in memory grows per sandbox.
 *
 * Several engines may prune one sandbox at once, and a prune may meet an attempt being recorded
 * (a replay of an old delivery). So one engine at a time prunes a sandbox (a transaction-level
 * advisory lock, tried: the others simply skip, the one holding it does the work), and a prune
 * never waits on a delivery another transaction holds (SKIP LOCKED: it goes next time), nor takes one
 * leased for an attempt in flight on any engine (a replay of an old delivery: its outcome is recorded
 * only if the delivery is still there). A prune that
 * waits on nothing can deadlock with nothing, and the recorder, which writes an attempt only for a
 * delivery its own update still found, can never leave an attempt whose delivery is gone.
 */
export class Pruner {
  /** Prunes running now: a burst that crosses the count once starts one. */
  private readonly pruning = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly max: number,
    private readonly onError: (message: string) => void,
  ) {}

  /**
   * New deliveries committed: `unpruned` is the database's count of the sandbox's deliveries since its
   * last prune, as the inserting transaction read it (without its own `count`).
   */
  created(tenantId: string, count: number, unpruned: number): void {
    if (unpruned + count < Math.min(pruneEvery, this.max) || this.pruning.has(tenantId)) return;
    this.pruning.add(tenantId);
    this.prune(tenantId)
      .catch((err) => this.onError(`pruning deliveries failed: ${err}`))
      .finally(() => this.pruning.delete(tenantId));
  }

  /** Prunes one sandbox now; returns how many deliveries went (0 when another engine is pruning it). */
  async prune(tenantId: string): Promise<number> {
    return this.db.transaction(async (tx) => {
      const [{ mine }] = await tx.query<{ mine: boolean }>(
        `select pg_try_advisory_xact_lock(hashtextextended('prune:' || $1, 0)) as mine`,
        [tenantId],
      );
      if (!mine) return 0;
      const gone = await tx.query<{ id: string; xid: string }>(
        `delete from deliveries d
          using (select d.tenant_id, d.id from deliveries d
                  where d.tenant_id = $1 and d.status <> 'pending' and ${noLiveLease}
                    and d.seq <= (select seq from deliveries where tenant_id = $1 order by seq desc offset $2 limit 1)
                  for update skip locked) old
          where d.tenant_id = old.tenant_id and d.id = old.id
          returning d.id, d.xid::text as xid`,
        [tenantId, this.max],
      );
      if (gone.length > 0) {
        const ids = gone.map((g) => g.id);
        await tx.query('delete from attempts where tenant_id = $1 and delivery_id = any($2)', [tenantId, ids]);
        const events = await tx.query<{ xid: string }>(
          `delete from events e where e.tenant_id = $1
              and e.seq <= (select seq from events where tenant_id = $1 order by seq desc offset $2 limit 1)
              and not exists (select 1 from deliveries d where d.tenant_id = e.tenant_id and d.event_id = e.id)
            returning e.xid::text as xid`,
          [tenantId, this.max],
        );
        // The commit positions of transactions none of whose rows is left.
        await tx.query(
          `delete from list_commits c where c.tenant_id = $1 and c.xid = any($2::xid8[])
              and not exists (select 1 from deliveries d where d.tenant_id = c.tenant_id and d.xid = c.xid)
              and not exists (select 1 from events e where e.tenant_id = c.tenant_id and e.xid = c.xid)`,
          [tenantId, [...new Set([...gone, ...events].map((r) => r.xid))]],
        );
      }
      // Last, so the counter row (which the sandbox's commits take at COMMIT) is held only for this moment.
      await tx.query('update list_counters set pruned_at = deliveries where tenant_id = $1', [tenantId]);
      return gone.length;
    });
  }
}
