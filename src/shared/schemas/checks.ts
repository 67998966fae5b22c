import { z } from 'zod';
import { Timestamp } from './common.ts';
import { SigningScheme } from './webhooks.ts';

/**
 * One case's result. `id` is any string here; the server narrows it to the battery's case ids (and names the schemas).
 */
export const CheckCaseResult = z.object({
  id: z.string().describe('The case (JUnit testcase name)'),
  ok: z.boolean().describe('Passed'),
  status: z
    .enum(['passed', 'failed', 'blocked'])
    .describe(
      'blocked: not scored, because the case in blockedBy (valid) failed: refusing a bad request proves nothing while a correct one is refused too',
    ),
  blockedBy: z.string().nullable().describe('The case whose failure blocks this one, else null'),
  warning: z.boolean().describe('Passed, but slow (latency between 2 s and 10 s)'),
  verified: z
    .boolean()
    .describe(
      'false: what the case is about could not be checked, only the answers (duplicate without an effects URL: processed once is not known)',
    ),
  expected: z.string().describe('What a correct receiver answers'),
  got: z
    .object({ status: z.number().int().nullable(), ms: z.number().int(), error: z.string().nullable() })
    .describe('The decisive answer: the first that failed the case, else the slowest'),
  cause: z.string().describe("Why it failed, in the receiver doctor's words, or why it was not scored; empty when ok"),
  fix: z
    .string()
    .describe(
      "What to change, in the receiver's language and framework when Sandbay could tell them; empty when ok or blocked (the root cause's case carries it)",
    ),
  deliveryIds: z.array(z.string()).describe('The deliveries this case sent (attempt trigger check)'),
});

export const CheckReport = z.object({
  url: z.string(),
  passed: z.number().int(),
  failed: z.number().int(),
  blocked: z.number().int().describe('Cases not scored because valid failed'),
  warnings: z.number().int(),
  durationMs: z.number().int(),
  rootCause: z
    .object({
      caseId: z.string().describe('The failed case every blocked case waits on (valid)'),
      cause: z.string().describe('Its cause: the headline (its fix is on that case)'),
      blocks: z.array(z.string()).describe('The cases it blocks'),
    })
    .nullable()
    .describe('When valid failed: the one cause to fix first'),
  cases: z.array(CheckCaseResult),
});

export const CheckRun = z.object({
  id: z.string(),
  endpointId: z.string().nullable(),
  url: z.string(),
  status: z.enum(['running', 'finished', 'interrupted']).describe('interrupted: the engine stopped while it ran'),
  total: z.number().int().describe('Cases in the battery; report.cases fills up to it while running'),
  createdAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  signature: z
    .array(SigningScheme)
    .describe("The schemes its requests are signed with: the endpoint's, or the one asked for a URL"),
  report: CheckReport,
});

export const CheckCaseInfo = z.object({
  id: z.string(),
  sends: z.string().describe('What the case sends'),
  guards: z.string().describe('The receiver bug it guards against'),
  expected: z.string().describe('What a correct receiver answers (with an effects URL)'),
});

export const CheckCases = z.object({ data: z.array(CheckCaseInfo) }).meta({ id: 'CheckCases' });
