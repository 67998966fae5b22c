import type { Tx } from '../../db/database.ts';
import type { DueJob, JobHandler } from '../../schedule/scheduler.ts';
import type { CommerceDeps } from './deps.ts';

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

/**
 * A job kind whose due times live in a table column (quotes.expires_at, payouts.next_attempt_at…):
 * the column is the persistence, so a restart rebuilds the queue from it, and a job that went
 * stale (the row moved on, or a reset replaced it) finds nothing to do.
 */
export function columnJobHandler(deps: CommerceDeps, job: ColumnJob): JobHandler {
  return {
    async load(): Promise<DueJob[]> {
      const rows = await deps.db.query<{ tenant_id: string; id: string; due: Date }>(
        `select tenant_id, id, ${job.column} as due from ${job.table}
          where ${job.column} is not null and ${job.pending}
            and tenant_id in (select id from tenants where not is_template)`,
      );
      return rows.map((r) => ({ kind: job.kind, tenantId: r.tenant_id, id: r.id, dueAt: r.due.getTime() }));
    },
    async run(due: DueJob, asOf: number): Promise<void> {
      const at = new Date(asOf);
      await deps.db.transaction(async (tx) => {
        const [row] = await tx.query(
          `select 1 from ${job.table} where tenant_id = $1 and id = $2 and ${job.pending} and ${job.column} <= $3 for update`,
          [due.tenantId, due.id, at],
        );
        if (row) await job.run(tx, due.tenantId, due.id, at);
      });
    },
  };
}
