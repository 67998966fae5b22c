import type { Db, Queryable } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { notFound } from '../../shared/problem.ts';
import { faultReason, isRowFault } from '../../webhooks/quarantine.ts';
import { keyset, keysetParams, type CommerceDeps, type PageOptions } from './deps.ts';
import type { ColumnJob, ColumnJobHandler } from './jobs.ts';

/**
 * SQL that is true while the job row `alias` owes at its due column has not failed (docs/decisions/failed-jobs.md):
 * a failure sets aside the job of one due time, so a row given a new due time owes a new job. `kind` is an SQL
 * expression for the job's kind (a parameter).
 */
export const notFailedSql = (alias: string, column: string, kind: string) =>
  `not exists (select 1 from failed_jobs f where f.tenant_id = ${alias}.tenant_id and f.kind = ${kind}
    and f.object_id = ${alias}.id and f.due_at = ${alias}.${column})`;

interface FailedJobRow {
  id: string;
  kind: string;
  object_id: string;
  due_at: Date;
  reason: string;
  failed_at_sandbox: Date | null;
  created_at: Date;
}

// A time the row holds that JavaScript cannot (a crafted file's year 200000) is shown as null, never a 500.
const isoOrNull = (d: Date | null) => (d && Number.isFinite(d.getTime()) ? d.toISOString() : null);

const toFailedJob = (r: FailedJobRow) => ({
  id: r.id,
  kind: r.kind,
  objectId: r.object_id,
  dueAt: isoOrNull(r.due_at),
  reason: r.reason,
  failedAt: r.created_at.toISOString(),
  ranAsOf: isoOrNull(r.failed_at_sandbox),
});

export type FailedJob = ReturnType<typeof toFailedJob>;

/**
 * Commerce column jobs whose stored state their handler cannot process (SPEC §12: a bad row is marked failed
 * with its reason, never run and logged again at every poll). The one path that sets a job aside, lists what
 * was set aside, and lets a job run again once its row is repaired.
 */
export class FailedJobs {
  constructor(
    private readonly db: Db,
    private readonly onError: (message: string) => void,
    /** A job was set aside: the live stream tells the sandbox's inspectors (`job.failed`). */
    private readonly failed: (tenantId: string, id: string, reason: string) => void = () => {},
  ) {}

  /**
   * The handler, whose run sets the job aside when it throws the row's fault. A database fault or a lost
   * race (src/webhooks/quarantine.ts isRowFault) is thrown on: the job stays owed and the next poll tries again.
   */
  guard(handler: ColumnJobHandler): ColumnJobHandler {
    return {
      ...handler,
      run: async (due, asOf) => {
        try {
          await handler.run(due, asOf);
        } catch (err) {
          if (!isRowFault(err)) throw err;
          // PostgreSQL text holds no NUL, which an error quoting the stored row might carry.
          const reason = faultReason('cannot run the job', err).replaceAll('\0', '');
          await this.record(handler.job, due.tenantId, due.id, asOf, reason);
        }
      },
    };
  }

  /**
   * Records the failure of the job the row owes now, and logs it once: a job already set aside at that due
   * time (another engine failed it first) is not recorded or logged again, nor is one whose row moved on.
   */
  private async record(job: ColumnJob, tenantId: string, objectId: string, asOf: number, reason: string) {
    const rows = await this.db.query<{ id: string }>(
      `insert into failed_jobs (tenant_id, id, kind, object_id, due_at, reason, failed_at_sandbox)
       select j.tenant_id, $3, $4, j.id, j.${job.column}, $5, $6 from ${job.table} j
        where j.tenant_id = $1 and j.id = $2 and j.${job.column} is not null and (${job.pending})
       on conflict do nothing returning id`,
      [tenantId, objectId, newId('fjb'), job.kind, reason, Number.isFinite(asOf) ? new Date(asOf) : null],
    );
    if (rows.length === 0) return;
    this.onError(`${job.kind} job for ${objectId} of sandbox ${tenantId} failed: ${reason}`);
    this.failed(tenantId, rows[0].id, reason);
  }
}

/** A sandbox's failed jobs, newest first. */
export async function listFailedJobs(q: Queryable, tenantId: string, page: PageOptions): Promise<FailedJob[]> {
  const k = keyset('f', 3);
  const rows = await q.query<FailedJobRow>(
    `select * from failed_jobs f where f.tenant_id = $1 and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, ...keysetParams(page)],
  );
  return rows.map(toFailedJob);
}

/**
 * Forgets a failure so that its job is owed again (its row repaired) and runs it now, once that is committed:
 * every poll, claim and advance sees it anew, and if it fails again it is recorded anew. Resolves to the failure
 * as it was.
 */
export async function retryFailedJob(deps: CommerceDeps, tenantId: string, id: string): Promise<FailedJob> {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx.query<FailedJobRow>('delete from failed_jobs where tenant_id = $1 and id = $2 returning *', [
      tenantId,
      id,
    ]);
    if (!row) throw notFound('failed job');
    const dueAt = row.due_at.getTime();
    // A stored time JavaScript cannot hold is left to the poll, which compares it in SQL.
    if (Number.isFinite(dueAt))
      tx.afterCommit(() => deps.scheduler.schedule({ kind: row.kind, tenantId, id: row.object_id, dueAt }));
    return toFailedJob(row);
  });
}
