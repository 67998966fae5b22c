import { z } from 'zod';
import { reportKinds, reportSchedules } from '../../webhooks/topics/data/reports.ts';
import { text, Timestamp } from './common.ts';

export const CreateReportRequest = z
  .object({
    name: text(200),
    kind: z.enum(reportKinds),
    schedule: z.enum(reportSchedules),
    firstRunAt: z.iso
      .datetime({ message: 'An RFC 3339 UTC timestamp ending in Z.' })
      .optional()
      .describe('First due time (sandbox clock); default one period from now'),
  })
  .strict()
  .meta({ id: 'CreateReportRequest' });

export const UpdateReportRequest = z
  .object({
    name: text(200).optional(),
    schedule: z.enum(reportSchedules).optional(),
    active: z.boolean().optional().describe('false pauses the schedule'),
  })
  .strict()
  .meta({ id: 'UpdateReportRequest' });

export const SavedReport = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z
      .enum(reportKinds)
      .nullable()
      .describe('null when the stored kind is not one this version computes (see error)'),
    schedule: z.enum(reportSchedules),
    error: z
      .string()
      .nullable()
      .describe(
        'Why the report cannot run: its row holds a kind this version does not compute (written by hand or by ' +
          'another version); its due job fails with this reason. null when it can run',
      ),
    active: z.boolean(),
    nextDueAt: Timestamp.nullable(),
    lastRunAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'SavedReport' });

export const ReportRun = z
  .object({
    id: z.string(),
    reportId: z.string(),
    dueAt: Timestamp,
    periodStart: Timestamp,
    periodEnd: Timestamp,
    result: z.record(z.string(), z.unknown()).describe('Depends on kind'),
    createdAt: Timestamp,
  })
  .meta({ id: 'ReportRun' });

export const runParams = z.object({ id: z.string().min(1).max(100), runId: z.string().min(1).max(100) });
