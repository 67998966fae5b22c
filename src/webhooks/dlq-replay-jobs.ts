import type { Queryable } from '../db/database.ts';
import type { DlqReplayJob, DlqReplayState, ReplayFilter } from '../shared/api-types.ts';
import { newId } from '../shared/ids.ts';

export type { DlqReplayJob, DlqReplayState, ReplayFilter };

export interface ReplayCounts {
  succeeded: number;
  failed: number;
  skipped: number;
}

/**
 * The worker writes its progress at least this often; a running job silent for longer lost its
 * worker (a crash, kill -9, a machine gone) and reads as interrupted, on every engine.
 */
const heartbeatTimeoutSeconds = 30;
const silent = `state = 'running' and updated_at < now() - interval '${heartbeatTimeoutSeconds} seconds'`;

const columns = `id, topic, endpoint_id, filter, total, succeeded, failed, skipped, created_at, updated_at,
  case when ${silent} then 'interrupted' else state end as state,
  case when ${silent} then updated_at else finished_at end as finished_at`;

interface JobRow extends ReplayCounts {
  id: string;
  state: DlqReplayState;
  topic: string | null;
  endpoint_id: string | null;
  filter: ReplayFilter | null;
  total: number;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const toJob = (r: JobRow): DlqReplayJob => ({
  id: r.id,
  state: r.state,
  topic: r.topic,
  endpointId: r.endpoint_id,
  // Jobs from before replays to another URL have no `to`.
  filter: r.filter && { ...r.filter, to: r.filter.to ?? null },
  total: r.total,
  done: r.succeeded + r.failed + r.skipped,
  succeeded: r.succeeded,
  failed: r.failed,
  skipped: r.skipped,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
});

/**
 * Starts a job row, or returns undefined when the sandbox already has a live one (the partial
 * unique index decides, so two engines racing cannot both start). A silent one is closed first.
 */
export async function insertJob(
  q: Queryable,
  tenantId: string,
  filter: ReplayFilter,
  total: number,
): Promise<DlqReplayJob | undefined> {
  await q.query(
    `update dlq_replay_jobs set state = 'interrupted', finished_at = updated_at where tenant_id = $1 and ${silent}`,
    [tenantId],
  );
  const [row] = await q.query<JobRow>(
    `insert into dlq_replay_jobs (tenant_id, id, topic, endpoint_id, filter, state, total) values ($1, $2, $3, $4, $5, 'running', $6)
       on conflict (tenant_id) where state = 'running' do nothing returning ${columns}`,
    [tenantId, newId('dlr'), filter.topic, filter.endpointId, JSON.stringify(filter), total],
  );
  return row && toJob(row);
}

export async function getJob(q: Queryable, tenantId: string, id: string): Promise<DlqReplayJob | undefined> {
  const [row] = await q.query<JobRow>(`select ${columns} from dlq_replay_jobs where tenant_id = $1 and id = $2`, [
    tenantId,
    id,
  ]);
  return row && toJob(row);
}

/** The sandbox's job that is still running, if any. */
export async function runningJob(q: Queryable, tenantId: string): Promise<DlqReplayJob | undefined> {
  const [row] = await q.query<JobRow>(
    `select ${columns} from dlq_replay_jobs where tenant_id = $1 and state = 'running'`,
    [tenantId],
  );
  return row && toJob(row);
}

/** Newest first, after a (createdAt, id) cursor position. */
export async function listJobs(
  q: Queryable,
  tenantId: string,
  limit: number,
  after?: { key: string | number; id: string },
): Promise<DlqReplayJob[]> {
  const rows = await q.query<JobRow>(
    `select ${columns} from dlq_replay_jobs where tenant_id = $1 and ($3::timestamptz is null or (created_at, id) < ($3, $4))
      order by created_at desc, id desc limit $2`,
    [tenantId, limit, after?.key ?? null, after?.id ?? null],
  );
  return rows.map(toJob);
}

/** Writes the worker's counts (and so its heartbeat); returns the job's state, undefined once a reset removed it. */
export async function recordProgress(
  q: Queryable,
  tenantId: string,
  id: string,
  counts: ReplayCounts,
): Promise<DlqReplayState | undefined> {
  const [row] = await q.query<{ state: DlqReplayState }>(
    'update dlq_replay_jobs set succeeded = $3, failed = $4, skipped = $5, updated_at = now() where tenant_id = $1 and id = $2 returning state',
    [tenantId, id, counts.succeeded, counts.failed, counts.skipped],
  );
  return row?.state;
}

/** The worker's last write: final counts, and `outcome` unless the job was cancelled or interrupted meanwhile. */
export async function finishJob(
  q: Queryable,
  tenantId: string,
  id: string,
  counts: ReplayCounts,
  outcome: 'completed' | 'interrupted',
): Promise<void> {
  await q.query(
    `update dlq_replay_jobs set succeeded = $3, failed = $4, skipped = $5, updated_at = now(), finished_at = coalesce(finished_at, now()),
        state = case when state = 'running' then $6 else state end
      where tenant_id = $1 and id = $2`,
    [tenantId, id, counts.succeeded, counts.failed, counts.skipped, outcome],
  );
}

/** Marks a running job cancelled (any engine may answer); undefined when it was not running. */
export async function cancelJob(q: Queryable, tenantId: string, id: string): Promise<DlqReplayJob | undefined> {
  const [row] = await q.query<JobRow>(
    `update dlq_replay_jobs set state = 'cancelled', finished_at = now(), updated_at = now()
      where tenant_id = $1 and id = $2 and state = 'running' and not (${silent}) returning ${columns}`,
    [tenantId, id],
  );
  return row && toJob(row);
}
