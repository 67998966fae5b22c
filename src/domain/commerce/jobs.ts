import type { Queryable, Tx } from '../../db/database.ts';
import { notAdvancingSql } from '../../schedule/clock.ts';
import { clockInRangeSql, sandboxNowSql } from '../../schedule/clock-range.ts';
import type { DueJob, JobHandler } from '../../schedule/scheduler.ts';
import type { CommerceDeps } from './deps.ts';
import { notFailedSql } from './failed-jobs.ts';

export interface ColumnJob {
  kind: string;
  /** The table whose rows carry the due time, e.g. quotes. */
  table: string;
  /** The due-time column, e.g. expires_at. */
  column: string;
  /** Which rows still owe the job, e.g. status = 'sent'. */
  pending: string;
  /**
   * Runs the job for one row as of sandbox time `asOf`, in a transaction. It is only called
   * while the row still owes the job at or before `asOf`, locked for update.
   */
  run(tx: Tx, tenantId: string, id: string, asOf: Date): Promise<void>;
}

/** A column job's handler; `due` lists a sandbox's jobs from the database, whichever engine scheduled them. */
export interface ColumnJobHandler extends JobHandler {
  readonly job: ColumnJob;
  due(tenantId: string, upTo: number): Promise<DueJob[]>;
}

/** Which sandboxes' overdue jobs the poll hands to the scheduler: not the seed template's, nor one being advanced. */
const runnableTenant = (alias: string) => `not ${alias}.is_template and ${notAdvancingSql(alias)}`;

/**
 * A job kind whose due times live in a table column (quotes.expires_at, payouts.next_attempt_at…):
 * the column is the persistence, so a restart rebuilds the queue from it, and a job that went
 * stale (the row moved on, or a reset replaced it) finds nothing to do.
 */
export function columnJobHandler(deps: CommerceDeps, job: ColumnJob): ColumnJobHandler {
  const toJobs = (rows: { tenant_id: string; id: string; due: Date }[]) =>
    rows.map((r) => ({ kind: job.kind, tenantId: r.tenant_id, id: r.id, dueAt: r.due.getTime() }));
  // A job that failed is left out everywhere (docs/decisions/failed-jobs.md); the kind is parameter n.
  const notFailed = (n: number) => notFailedSql('j', job.column, `$${n}::text`);
  return {
    job,
    async load(): Promise<DueJob[]> {
      return toJobs(
        await deps.db.query(
          `select tenant_id, id, ${job.column} as due from ${job.table} j
          where ${job.column} is not null and (${job.pending}) and ${notFailed(1)}
            and tenant_id in (select id from tenants where not is_template)`,
          [job.kind],
        ),
      );
    },
    async due(tenantId: string, upTo: number): Promise<DueJob[]> {
      // Rows another transaction holds are left out, as `run` would skip them: an advance asking again and
      // again for a job it cannot take (a row someone keeps locked) would never end. The lock lasts this statement.
      return toJobs(
        await deps.db.query(
          `select tenant_id, id, ${job.column} as due from ${job.table} j
          where tenant_id = $1 and ${job.column} <= $2 and (${job.pending}) and ${notFailed(3)}
          order by ${job.column} for update of j skip locked`,
          [tenantId, new Date(upTo), job.kind],
          { prepare: true },
        ),
      );
    },
    async run(due: DueJob, asOf: number): Promise<void> {
      const at = new Date(asOf);
      await deps.db.transaction(async (tx) => {
        // SKIP LOCKED: when another engine is running this job, it is theirs (and once they commit, the
        // row no longer owes it); a row some request holds is skipped too, and the poll finds it again
        // if it still owes the job afterwards. Never two runs, never an engine waiting on another.
        // A real-time run leaves a sandbox another engine is advancing to that advance (which runs it as of its due
        // time).
        const realTime = !deps.scheduler.advancingTenants().includes(due.tenantId);
        const [row] = await tx.query(
          `select 1 from ${job.table} j where tenant_id = $1 and id = $2 and (${job.pending}) and ${job.column} <= $3
              and (not $4::boolean or exists (select 1 from tenants t where t.id = j.tenant_id and ${notAdvancingSql('t')}))
              and ${notFailed(5)}
            for update of j skip locked`,
          [due.tenantId, due.id, at, realTime, job.kind],
        );
        if (row) await job.run(tx, due.tenantId, due.id, at);
      });
    },
  };
}

/**
 * Every kind's jobs already due by their sandbox's clock (the database's time plus the offset), earliest
 * first: what a poll hands to the scheduler, so work another engine scheduled, and then died, still runs.
 */
export async function overdueJobs(q: Queryable, jobs: ColumnJob[], limit: number): Promise<DueJob[]> {
  if (jobs.length === 0) return [];
  const union = jobs
    .map(
      (j, i) =>
        `select $${i + 2}::text as kind, tenant_id, id, ${j.column} as due from ${j.table} r
          where ${j.column} is not null and (${j.pending}) and ${notFailedSql('r', j.column, `$${i + 2}::text`)}`,
    )
    .join(' union all ');
  const rows = await q.query<{ kind: string; tenant_id: string; id: string; due: Date }>(
    `select j.kind, j.tenant_id, j.id, j.due from (${union}) j join tenants t on t.id = j.tenant_id
      where ${runnableTenant('t')} and ${clockInRangeSql('t')} and j.due <= ${sandboxNowSql('t')}
      order by j.due limit $1`,
    [limit, ...jobs.map((j) => j.kind)],
  );
  return rows.map((r) => ({ kind: r.kind, tenantId: r.tenant_id, id: r.id, dueAt: r.due.getTime() }));
}
