import { listFailedJobs, retryFailedJob } from '../../domain/commerce/failed-jobs.ts';
import { FailedJob } from '../../shared/schemas/jobs.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';

const tags = ['Sandbox clock'];

/** Jobs on the sandbox clock that failed on a row the engine could not process (docs/decisions/failed-jobs.md). */
export const jobRoutes = (s: Services) => [
  route({
    method: 'get',
    path: '/api/v1/sandbox/jobs/failed',
    operationId: 'listFailedJobs',
    tags,
    access: 'sandbox',
    scope: 'sandbox:read',
    summary:
      'List jobs (expiries, payout retries, reports…) set aside because their row could not be processed, newest first.',
    query: listQuery,
    responses: { 200: listOf(FailedJob) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(
        s,
        { query, principal, ctx },
        (page) => listFailedJobs(s.db, tenantOf(principal), page),
        // A failure's created_at is its failedAt.
        (job) => job.failedAt,
      ),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/sandbox/jobs/failed/:id/retry',
    operationId: 'retryFailedJob',
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      'Run a failed job again now that its row is repaired; answers at once. If it fails again, it is listed anew.',
    params: idParam,
    responses: { 202: FailedJob },
    handler: async ({ params, principal }) => ({
      status: 202,
      body: await retryFailedJob(s, tenantOf(principal), params.id),
    }),
  }),
];
