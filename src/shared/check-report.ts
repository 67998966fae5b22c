import type { z } from 'zod';
import type * as schemas from './schemas/checks.ts';

/** One case of a receiver check (SPEC §10), as the CLI, the API, the inspector and sandbay/testing report it. */
export type CheckCaseResult = z.infer<typeof schemas.CheckCaseResult>;
/** The scored battery: `sandbay check --json` prints exactly this. */
export type CheckReport = z.infer<typeof schemas.CheckReport>;
/** A stored run of the battery against an endpoint (or a bare URL). */
export type CheckRun = z.infer<typeof schemas.CheckRun>;

/** Blocked cases say why in one line; the fix is the root cause's, given once. */
export const blockedCause = (by: string, reached: boolean) =>
  reached
    ? `Not scored: blocked by ${by}. While a correct delivery is refused, this case's answer proves nothing; fix ${by} first.`
    : `Not sent: the receiver did not answer ${by}.`;

/** A receiver that answered nothing at all: every case without an HTTP status (exit code 2). */
const receiverUnreachable = (report: CheckReport): boolean =>
  report.cases.length > 0 && report.cases.every((c) => c.got.status === null);

/** Exit code of `sandbay check`: 0 every required case passed, 1 a case failed, 2 receiver unreachable. */
export const checkExitCode = (report: CheckReport): 0 | 1 | 2 =>
  receiverUnreachable(report) ? 2 : report.failed > 0 ? 1 : 0;

/** Why a passed case is not verified (the duplicate without an effects URL), as every report says it. */
export const notVerified = (c: CheckCaseResult) =>
  `${c.id === 'duplicate' ? 'processed once' : 'its effect'} is checked only with an effects URL (--effects-url)`;
