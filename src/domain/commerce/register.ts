import { approvalExpiryHandler } from '../b2b/approvals.ts';
import { approvalExpiryJob } from '../b2b/approval-policy.ts';
import { payoutRetryHandler, payoutRetryJob } from '../payouts/payouts.ts';
import { quoteExpiryHandler, quoteExpiryJob } from '../quotes/quotes.ts';
import { reportDueHandler, reportDueJob } from '../reports/reports.ts';
import { consentPushHandler, consentPushJob } from '../security/consents.ts';
import { impersonationTimeoutHandler, impersonationTimeoutJob } from '../security/impersonation.ts';
import type { CommerceDeps } from './deps.ts';
import { FailedJobs } from './failed-jobs.ts';
import { ColumnJobWatch } from './job-watch.ts';
import type { ColumnJobHandler } from './jobs.ts';

/**
 * The commerce platform's jobs on the sandbox clock: expiries, payout retries, reports, IYS pushes.
 * A reset or delete drops them with every other job of the sandbox (Dispatcher.forgetTenant →
 * Scheduler.cancelTenant, which cancels every kind): the reseeded rows owe none
 * (docs/decisions/the-seed-owes-no-jobs.md), so commerce keeps no per-kind cancel of its own.
 */
function commerceJobs(deps: CommerceDeps): [string, ColumnJobHandler][] {
  return [
    [approvalExpiryJob, approvalExpiryHandler(deps)],
    [quoteExpiryJob, quoteExpiryHandler(deps)],
    [payoutRetryJob, payoutRetryHandler(deps)],
    [reportDueJob, reportDueHandler(deps)],
    [impersonationTimeoutJob, impersonationTimeoutHandler(deps)],
    [consentPushJob, consentPushHandler(deps)],
  ];
}

/**
 * Registers the commerce jobs with the scheduler (a job whose row its handler cannot process is set aside as
 * failed, logged once: src/domain/commerce/failed-jobs.ts) and starts watching for those other engines on the
 * database schedule (team mode); resolves to its stop.
 */
export async function startCommerceJobs(
  deps: CommerceDeps,
  options: {
    pollMs?: number;
    onError: (message: string) => void;
    /** A job was set aside as failed (its failure's id and reason). */
    onJobFailed?: (tenantId: string, id: string, reason: string) => void;
  },
): Promise<() => Promise<void>> {
  const handlers = commerceJobs(deps);
  const failures = new FailedJobs(deps.db, options.onError, options.onJobFailed);
  for (const [kind, handler] of handlers) deps.scheduler.register(kind, failures.guard(handler));
  const watch = new ColumnJobWatch(
    deps.db,
    deps.scheduler,
    handlers.map(([, h]) => h.job),
    options.onError,
    options.pollMs,
  );
  await watch.start();
  return () => watch.close();
}
