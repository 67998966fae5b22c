import type { Queryable } from '../../src/db/database.ts';
import type { TestSandbox } from './engine.ts';

/** Saves an hourly sales report first due `inMs` after the sandbox clock's now; returns the report. */
export async function reportDueIn(sb: Pick<TestSandbox, 'api'>, inMs: number, name = 'Rapor'): Promise<any> {
  const clock = await sb.api('/api/v1/sandbox/clock');
  const firstRunAt = new Date(Date.parse(clock.body.now) + inMs).toISOString();
  const res = await sb.api('/api/v1/reports', {
    body: { name, kind: 'sales_summary', schedule: 'hourly', firstRunAt },
  });
  if (res.status !== 201) throw new Error(`report failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Writes a saved report's kind straight into its row. `nope`, a kind no version of Sandbay computes, stands for a
 * row another version or a crafted sandbox file wrote (SPEC §12): its job fails on the row and is set aside
 * (docs/decisions/failed-jobs.md); `sales_summary` repairs it.
 */
export const setReportKind = (db: Queryable, sandboxId: string, reportId: string, kind: string) =>
  db.query('update saved_reports set kind = $3 where tenant_id = $1 and id = $2', [sandboxId, reportId, kind]);
