import type { JobHandler, Scheduler } from '../../schedule/scheduler.ts';
import { approvalExpiryHandler } from '../b2b/approvals.ts';
import { approvalExpiryJob } from '../b2b/approval-policy.ts';
import { payoutRetryHandler, payoutRetryJob } from '../payouts/payouts.ts';
import { quoteExpiryHandler, quoteExpiryJob } from '../quotes/quotes.ts';
import { reportDueHandler, reportDueJob } from '../reports/reports.ts';
import type { TenantLifecycle } from '../../shared/tenant-lifecycle.ts';
import { consentPushHandler, consentPushJob } from '../security/consents.ts';
import { impersonationTimeoutHandler, impersonationTimeoutJob } from '../security/impersonation.ts';
import type { CommerceDeps } from './deps.ts';

/** The commerce platform's jobs on the sandbox clock: expiries, payout retries, reports, IYS pushes. */
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

const kinds = new Set([approvalExpiryJob, quoteExpiryJob, payoutRetryJob, reportDueJob, impersonationTimeoutJob, consentPushJob]);

/** A reset or delete drops the sandbox's commerce jobs; the reseeded rows owe none. */
export function commerceLifecycle(scheduler: Scheduler): TenantLifecycle {
  return {
    after(tenantId) {
      for (const job of scheduler.pending(tenantId)) if (kinds.has(job.kind)) scheduler.cancel(job.kind, tenantId, job.id);
    },
  };
}
