import type { Tx } from '../../db/database.ts';
import type { DueJob, Scheduler } from '../../schedule/scheduler.ts';
import type { DomainDeps } from '../deps.ts';

/** The channel on which engines tell each other of the column jobs they schedule. */
export const jobsChannel = 'sandbay_jobs';

/** Domain rules that put work on the sandbox clock (expiries, retries, reports) also need the scheduler. */
export interface CommerceDeps extends DomainDeps {
  scheduler: Scheduler;
}

/**
 * Schedules a due job once the transaction that decided it has committed (a rollback schedules nothing),
 * here at once and on every other engine on the database at the COMMIT (NOTIFY), so the job runs on time
 * even if this engine stops first (src/domain/commerce/job-watch.ts).
 */
export async function scheduleAfterCommit(
  tx: Tx,
  deps: CommerceDeps,
  kind: string,
  tenantId: string,
  id: string,
  dueAt: Date,
): Promise<void> {
  const job: DueJob = { kind, tenantId, id, dueAt: dueAt.getTime() };
  tx.afterCommit(() => deps.scheduler.schedule(job));
  await tx.notify(jobsChannel, JSON.stringify(job));
}

/** Where a list page starts: the (createdAt, id) of the last row of the previous page. */
export interface PageOptions {
  limit: number;
  after?: { key: string | number; id: string };
}

/**
 * The keyset condition and ordering every newest-first list uses; `n` is the number of the
 * first of the two parameters it takes (cursor time, cursor id).
 */
export const keyset = (alias: string, n: number) => ({
  where: `($${n}::timestamptz is null or (${alias}.created_at, ${alias}.id) < ($${n}::timestamptz, $${n + 1}::text))`,
  order: `order by ${alias}.created_at desc, ${alias}.id desc`,
});

/** The two keyset parameters for a page. */
export const keysetParams = (page: PageOptions) => [page.after?.key ?? null, page.after?.id ?? null];

/** ISO text of a nullable time. */
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** Drops a due job once the transaction that made it moot has committed. */
export function cancelAfterCommit(tx: Tx, deps: CommerceDeps, kind: string, tenantId: string, id: string): void {
  tx.afterCommit(() => deps.scheduler.cancel(kind, tenantId, id));
}
