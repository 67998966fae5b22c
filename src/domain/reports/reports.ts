import type { Queryable } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { notFound, validationFailed } from '../../shared/problem.ts';
import {
  reportKinds,
  savedReportDueData,
  type reportSchedules,
  type ReportEventRow,
} from '../../webhooks/topics/data/reports.ts';
import {
  iso,
  keyset,
  keysetParams,
  scheduleAfterCommit,
  cancelAfterCommit,
  type CommerceDeps,
  type PageOptions,
} from '../commerce/deps.ts';
import { columnJobHandler } from '../commerce/jobs.ts';
import { computeReport } from './compute.ts';

export const reportDueJob = 'report.due';

type Kind = (typeof reportKinds)[number];
type Schedule = (typeof reportSchedules)[number];
const scheduleMs: Record<Schedule, number> = { hourly: 3600_000, daily: 86_400_000, weekly: 7 * 86_400_000 };

const isKind = (kind: string): kind is Kind => (reportKinds as readonly string[]).includes(kind);

export interface NewReport {
  name: string;
  kind: Kind;
  schedule: Schedule;
  /** The first due time; default one period from now. */
  firstRunAt?: Date;
}

interface ReportRow extends ReportEventRow {
  active: boolean;
  last_run_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Why a report's row cannot run, or null when it can: a kind this version does not compute, as a row written by hand
 * or by another version may hold (the schedule has a CHECK; docs/decisions/a-saved-report-of-an-unknown-kind.md).
 */
const unrunnable = (r: ReportRow) => (isKind(r.kind) ? null : `unknown report kind ${JSON.stringify(r.kind)}`);

// An unknown kind is answered as null with the reason in `error`: the API never answers outside its schema.
const toReport = (r: ReportRow) => ({
  id: r.id,
  name: r.name,
  kind: isKind(r.kind) ? r.kind : null,
  schedule: r.schedule as Schedule,
  error: unrunnable(r),
  active: r.active,
  nextDueAt: iso(r.next_due_at),
  lastRunAt: iso(r.last_run_at),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export type SavedReport = ReturnType<typeof toReport>;

/** One saved report. */
export async function getReport(q: Queryable, tenantId: string, id: string): Promise<SavedReport> {
  const [row] = await q.query<ReportRow>('select * from saved_reports where tenant_id = $1 and id = $2', [
    tenantId,
    id,
  ]);
  if (!row) throw notFound('saved report');
  return toReport(row);
}

/** Saved reports, newest first. */
export async function listReports(q: Queryable, tenantId: string, page: PageOptions): Promise<SavedReport[]> {
  const k = keyset('r', 3);
  const rows = await q.query<ReportRow>(
    `select * from saved_reports r where r.tenant_id = $1 and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, ...keysetParams(page)],
  );
  return rows.map(toReport);
}

/** A saved report falls due on its schedule: saved_report.due fires and its result is kept as a run. */
export async function createReport(deps: CommerceDeps, tenantId: string, input: NewReport): Promise<SavedReport> {
  const now = deps.clock.now(tenantId);
  const due = input.firstRunAt ?? new Date(now.getTime() + scheduleMs[input.schedule]);
  if (due.getTime() < now.getTime() + 1000) {
    throw validationFailed([{ path: '/firstRunAt', message: 'Must be after the sandbox now.' }]);
  }
  const id = newId('rep');
  await deps.db.transaction(async (tx) => {
    await tx.query(
      `insert into saved_reports (tenant_id, id, name, kind, schedule, active, next_due_at, created_at, updated_at)
       values ($1, $2, $3, $4, $5, true, $6, $7, $7)`,
      [tenantId, id, input.name, input.kind, input.schedule, due, now],
    );
    await scheduleAfterCommit(tx, deps, reportDueJob, tenantId, id, due);
  });
  return getReport(deps.db, tenantId, id);
}

/** Renames, reschedules, pauses (active: false) or resumes a report; resuming counts one period from now. */
export async function updateReport(
  deps: CommerceDeps,
  tenantId: string,
  id: string,
  patch: { name?: string; schedule?: Schedule; active?: boolean },
): Promise<SavedReport> {
  await deps.db.transaction(async (tx) => {
    const [r] = await tx.query<ReportRow>('select * from saved_reports where tenant_id = $1 and id = $2 for update', [
      tenantId,
      id,
    ]);
    if (!r) throw notFound('saved report');
    const now = deps.clock.now(tenantId);
    const schedule = patch.schedule ?? (r.schedule as Schedule);
    const active = patch.active ?? r.active;
    const restart = active && (!r.active || patch.schedule !== undefined);
    const nextDue = !active ? null : restart ? new Date(now.getTime() + scheduleMs[schedule]) : r.next_due_at;
    await tx.query(
      `update saved_reports set name = coalesce($3, name), schedule = $4, active = $5, next_due_at = $6, updated_at = $7 where tenant_id = $1 and id = $2`,
      [tenantId, id, patch.name ?? null, schedule, active, nextDue, now],
    );
    if (nextDue) await scheduleAfterCommit(tx, deps, reportDueJob, tenantId, id, nextDue);
    else cancelAfterCommit(tx, deps, reportDueJob, tenantId, id);
  });
  return getReport(deps.db, tenantId, id);
}

/** Deletes a report, its runs and its pending due time. */
export async function deleteReport(deps: CommerceDeps, tenantId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const gone = await tx.query('delete from saved_reports where tenant_id = $1 and id = $2 returning id', [
      tenantId,
      id,
    ]);
    if (gone.length === 0) throw notFound('saved report');
    await tx.query('delete from report_runs where tenant_id = $1 and report_id = $2', [tenantId, id]);
    cancelAfterCommit(tx, deps, reportDueJob, tenantId, id);
  });
}

interface RunRow {
  id: string;
  report_id: string;
  due_at: Date;
  period_start: Date;
  period_end: Date;
  result: unknown;
  created_at: Date;
}

const toRun = (r: RunRow) => ({
  id: r.id,
  reportId: r.report_id,
  dueAt: r.due_at.toISOString(),
  periodStart: r.period_start.toISOString(),
  periodEnd: r.period_end.toISOString(),
  result: r.result,
  createdAt: r.created_at.toISOString(),
});

/** A report's runs, newest first. */
export async function listRuns(q: Queryable, tenantId: string, reportId: string, page: PageOptions) {
  await getReport(q, tenantId, reportId);
  const rows = await q.query<RunRow>(
    `select * from report_runs r where r.tenant_id = $1 and r.report_id = $3
        and ($4::timestamptz is null or (r.created_at, r.id) < ($4::timestamptz, $5::text)) order by r.created_at desc, r.id desc limit $2`,
    [tenantId, page.limit, reportId, ...keysetParams(page)],
  );
  return rows.map(toRun);
}

/** One run of a report, with its result. */
export async function getRun(q: Queryable, tenantId: string, reportId: string, runId: string) {
  const [row] = await q.query<RunRow>('select * from report_runs where tenant_id = $1 and report_id = $2 and id = $3', [
    tenantId,
    reportId,
    runId,
  ]);
  if (!row) throw notFound('report run');
  return toRun(row);
}

/**
 * When a report falls due: its result over the period just ended is stored as a run (as of the
 * due time), saved_report.due announces it, and the next due time is one period later.
 */
export const reportDueHandler = (deps: CommerceDeps) =>
  columnJobHandler(deps, {
    kind: reportDueJob,
    table: 'saved_reports',
    column: 'next_due_at',
    pending: 'active',
    async run(tx, tenantId, id, asOf) {
      const [r] = await tx.query<ReportRow>('select * from saved_reports where tenant_id = $1 and id = $2', [
        tenantId,
        id,
      ]);
      const fault = unrunnable(r);
      if (fault) throw new Error(fault);
      const dueAt = r.next_due_at!;
      const since = new Date(dueAt.getTime() - scheduleMs[r.schedule as Schedule]);
      const result = await computeReport(tx, r.kind, { tenantId, since, until: dueAt });
      const [run] = await tx.query<RunRow>(
        `insert into report_runs (tenant_id, id, report_id, due_at, period_start, period_end, result, created_at)
         values ($1, $2, $3, $4, $5, $4, $6, $7) returning *`,
        [tenantId, newId('rrn'), id, dueAt, since, JSON.stringify(result), asOf],
      );
      const next = new Date(dueAt.getTime() + scheduleMs[r.schedule as Schedule]);
      const [after] = await tx.query<ReportRow>(
        'update saved_reports set next_due_at = $3, last_run_at = $4, updated_at = $4 where tenant_id = $1 and id = $2 returning *',
        [tenantId, id, next, asOf],
      );
      await deps.events.emit(tx, tenantId, 'saved_report.due', savedReportDueData(after, run), { occurredAt: asOf });
      await scheduleAfterCommit(tx, deps, reportDueJob, tenantId, id, next);
    },
  });
