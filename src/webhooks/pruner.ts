import type { Db } from '../db/database.ts';
import { noLiveLease } from './leases.ts';

/**
 * Keeps each sandbox at its newest N deliveries (SPEC §3): every few hundred new ones,
 * older finished deliveries, their attempts and events left without deliveries go.
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
  private readonly sinceLast = new Map<string, number>();

  constructor(private readonly db: Db, private readonly max: number, private readonly onError: (message: string) => void) {}

  /** Counts new deliveries; every few hundred, prunes the sandbox in the background. */
  created(tenantId: string, count: number): void {
    const n = (this.sinceLast.get(tenantId) ?? 0) + count;
    if (n < Math.min(500, this.max)) return void this.sinceLast.set(tenantId, n);
    this.sinceLast.set(tenantId, 0);
    this.prune(tenantId).catch((err) => this.onError(`pruning deliveries failed: ${err}`));
  }

  /** Prunes one sandbox now; returns how many deliveries went (0 when another engine is pruning it). */
  async prune(tenantId: string): Promise<number> {
    return this.db.transaction(async (tx) => {
      const [{ mine }] = await tx.query<{ mine: boolean }>(`select pg_try_advisory_xact_lock(hashtextextended('prune:' || $1, 0)) as mine`, [tenantId]);
      if (!mine) return 0;
      const gone = await tx.query<{ id: string }>(
        `delete from deliveries d
          using (select d.tenant_id, d.id from deliveries d
                  where d.tenant_id = $1 and d.status <> 'pending' and ${noLiveLease}
                    and d.seq <= (select seq from deliveries where tenant_id = $1 order by seq desc offset $2 limit 1)
                  for update skip locked) old
          where d.tenant_id = old.tenant_id and d.id = old.id
          returning d.id`,
        [tenantId, this.max],
      );
      if (gone.length === 0) return 0;
      const ids = gone.map((g) => g.id);
      await tx.query('delete from attempts where tenant_id = $1 and delivery_id = any($2)', [tenantId, ids]);
      await tx.query(
        `delete from events e where e.tenant_id = $1
            and e.seq <= (select seq from events where tenant_id = $1 order by seq desc offset $2 limit 1)
            and not exists (select 1 from deliveries d where d.tenant_id = e.tenant_id and d.event_id = e.id)`,
        [tenantId, this.max],
      );
      return gone.length;
    });
  }
}
