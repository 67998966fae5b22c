import { z } from 'zod';
import { isoOrNull, timestamp } from './common.ts';

export const reportKinds = ['sales_summary', 'top_products', 'payments_summary'] as const;
export const reportSchedules = ['hourly', 'daily', 'weekly'] as const;

export const SavedReportDue = z.object({
  reportId: z.string(),
  runId: z.string(),
  name: z.string(),
  kind: z.enum(reportKinds),
  schedule: z.enum(reportSchedules),
  dueAt: timestamp,
  periodStart: timestamp,
  periodEnd: timestamp,
  resultPath: z.string().describe('GET this path (with a reports:read token) for the result'),
  nextDueAt: timestamp.nullable(),
});

export interface ReportEventRow {
  id: string;
  name: string;
  kind: string;
  schedule: string;
  next_due_at: Date | null;
}

export interface RunEventRow {
  id: string;
  due_at: Date;
  period_start: Date;
  period_end: Date;
}

export const savedReportDueData = (r: ReportEventRow, run: RunEventRow): z.output<typeof SavedReportDue> => ({
  reportId: r.id,
  runId: run.id,
  name: r.name,
  kind: r.kind as 'sales_summary',
  schedule: r.schedule as 'daily',
  dueAt: run.due_at.toISOString(),
  periodStart: run.period_start.toISOString(),
  periodEnd: run.period_end.toISOString(),
  resultPath: `/api/v1/reports/${r.id}/runs/${run.id}`,
  nextDueAt: isoOrNull(r.next_due_at),
});
