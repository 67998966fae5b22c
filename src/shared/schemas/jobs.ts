import { z } from 'zod';
import { Timestamp } from './common.ts';

/** A commerce job set aside because its row's stored state could not be processed (SPEC §12). */
export const FailedJob = z
  .object({
    id: z.string().describe('fjb_…'),
    kind: z
      .string()
      .describe(
        'The job: quote.expire, approval.expire, payout.retry, report.due, impersonation.timeout, consent.iys_push',
      ),
    objectId: z.string().describe('The object whose row owes the job (a quote, approval, payout, saved report…)'),
    dueAt: Timestamp.nullable().describe('Sandbox time the job was due; null when the stored time is out of range'),
    reason: z.string().describe('What went wrong: the step and the error, never a stack'),
    failedAt: Timestamp.describe('When it failed, real time'),
    ranAsOf: Timestamp.nullable().describe('The sandbox time the failed run was as of'),
  })
  .meta({ id: 'FailedJob' });
