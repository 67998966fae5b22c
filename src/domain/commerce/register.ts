import type { JobHandler } from '../../schedule/scheduler.ts';
import { approvalExpiryHandler } from '../b2b/approvals.ts';
import { approvalExpiryJob } from '../b2b/approval-policy.ts';
import { payoutRetryHandler, payoutRetryJob } from '../payouts/payouts.ts';
import { quoteExpiryHandler, quoteExpiryJob } from '../quotes/quotes.ts';
import { reportDueHandler, reportDueJob } from '../reports/reports.ts';
import { consentPushHandler, consentPushJob } from '../security/consents.ts';
import { impersonationTimeoutHandler, impersonationTimeoutJob } from '../security/impersonation.ts';
import type { CommerceDeps } from './deps.ts';

/**
 * The commerce platform's jobs on the sandbox clock: expiries, payout retries, reports, IYS pushes.
 * A reset or delete drops them with every other job of the sandbox (Dispatcher.forgetTenant →
 * Scheduler.cancelTenant, which cancels every kind): the reseeded rows owe none (docs/decisions.md,
 * "The seed owes no jobs"), so commerce keeps no per-kind cancel of its own.
 */
export function commerceJobs(deps: CommerceDeps): [string, JobHandler][] {
  return [
    [approvalExpiryJob, approvalExpiryHandler(deps)],
    [quoteExpiryJob, quoteExpiryHandler(deps)],
    [payoutRetryJob, payoutRetryHandler(deps)],
    [reportDueJob, reportDueHandler(deps)],
    [impersonationTimeoutJob, impersonationTimeoutHandler(deps)],
    [consentPushJob, consentPushHandler(deps)],
  ];
}
