import { setTimeout } from 'node:timers/promises';
import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import { ApiError, notFound } from '../shared/problem.ts';
import { isTopic, isValidPattern, patternMatches, type Topic } from '../shared/topics.ts';
import type { AttemptResult } from './attempt-outcome.ts';
import type { Dispatcher } from './dispatcher.ts';
import {
  cancelJob,
  finishJob,
  getJob,
  insertJob,
  listJobs,
  recordProgress,
  runningJob,
  type DlqReplayJob,
  type ReplayCounts,
  type ReplayFilter,
} from './dlq-replay-jobs.ts';
import type { QueuedDelivery } from './outbox.ts';
import { unknownTopic } from './service.ts';

export type { DlqReplayJob, ReplayFilter } from './dlq-replay-jobs.ts';

/** A delivery a replay would send again, as a dry run lists it. */
export interface ReplayCandidate {
  id: string;
  topic: string;
  status: 'pending' | 'succeeded' | 'dead';
  endpointId: string | null;
  /** Where a delivery with no endpoint goes: a test webhook's URL, or the URL a replay sent it to. */
  targetUrl: string | null;
  createdAt: string;
}

/** A replay filter as the API takes it: every field optional but the statuses. */
export type ReplayFilterInput = Partial<ReplayFilter> & Pick<ReplayFilter, 'statuses'>;

export interface DlqReplayOptions {
  /**
   * Replays in flight at once per job: SPEC §5.2's ten attempts per endpoint, so one endpoint's DLQ runs at full width.
   */
  concurrency: number;
  /** How often the worker writes its counts (its heartbeat). */
  progressEveryMs: number;
}

interface LocalRun {
  tenantId: string;
  id: string;
  counts: ReplayCounts;
  stopped: boolean;
  finished: Promise<void>;
}

type Outcome = keyof ReplayCounts;

/**
 * Replays of the whole dead-letter queue as jobs: POST answers at once, the replays run here
 * with bounded concurrency, and the progress lives in dlq_replay_jobs so any engine can report
 * or cancel it. A job whose worker dies mid-way reads as `interrupted` (it is not resumed: what
 * it did not replay is still dead, and another replay picks it up).
 */
export class DlqReplays {
  private readonly local = new Map<string, LocalRun>();
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
    private readonly dispatcher: Dispatcher,
    /** A new delivery made from one, to another URL, its first attempt left to the job (WebhookService.resendTo). */
    private readonly resendTo: (tenantId: string, id: string, to: string) => Promise<QueuedDelivery>,
    private readonly onError: (message: string) => void,
    private readonly options: DlqReplayOptions = { concurrency: 10, progressEveryMs: 500 },
  ) {}

  /** Starts replaying every dead delivery matching the filters; 409 while another replay of this sandbox runs. */
  startDlq(tenantId: string, filter: { topic?: string; endpointId?: string }): Promise<DlqReplayJob> {
    if (filter.topic && !isTopic(filter.topic)) throw unknownTopic(filter.topic);
    return this.start(tenantId, { ...filter, statuses: ['dead'] });
  }

  /**
   * The deliveries a filter names (issue 31), oldest first: of the statuses asked for, the topic or pattern,
   * the endpoint, created within [since, until) on the sandbox clock, among `ids` if given; never a
   * receiver check's requests (they are sent once, as their case wanted).
   */
  async select(tenantId: string, input: ReplayFilterInput): Promise<{ filter: ReplayFilter; rows: ReplayCandidate[] }> {
    const filter: ReplayFilter = {
      statuses: [...new Set(input.statuses)],
      topic: input.topic ?? null,
      endpointId: input.endpointId ?? null,
      since: input.since ?? null,
      until: input.until ?? null,
      ids: input.ids ?? null,
      to: input.to ?? null,
    };
    if (filter.topic && !isTopic(filter.topic) && !isValidPattern(filter.topic)) throw unknownTopic(filter.topic);
    const plain = filter.statuses.filter((s) => s !== 'failed');
    const rows = await this.db.query<{
      id: string;
      topic: Topic;
      status: ReplayCandidate['status'];
      endpoint_id: string | null;
      target_url: string | null;
      created_at: Date;
    }>(
      `select id, topic, status, endpoint_id, target_url, created_at from deliveries
        where tenant_id = $1 and check_id is null
          and (status = any($2::text[]) or ($3::boolean and status = 'pending' and attempt_count > 0))
          and ($4::text is null or endpoint_id = $4)
          and ($5::timestamptz is null or created_at >= $5) and ($6::timestamptz is null or created_at < $6)
          and ($7::text[] is null or id = any($7::text[]))
        order by seq`,
      [tenantId, plain, filter.statuses.includes('failed'), filter.endpointId, filter.since, filter.until, filter.ids],
    );
    const topic = filter.topic;
    return {
      filter,
      rows: rows
        .filter((r) => !topic || patternMatches(topic, r.topic))
        .map((r) => ({
          id: r.id,
          topic: r.topic,
          status: r.status,
          endpointId: r.endpoint_id,
          targetUrl: r.endpoint_id ? null : r.target_url,
          createdAt: r.created_at.toISOString(),
        })),
    };
  }

  /** Starts replaying every delivery the filter names; 409 while another replay of this sandbox runs. */
  async start(tenantId: string, input: ReplayFilterInput): Promise<DlqReplayJob> {
    const { filter, rows } = await this.select(tenantId, input);
    // The work starts once the job row is committed: inside a keyed request's transaction, not before it commits.
    const job = await this.db.transaction(async (tx) => {
      const inserted = await insertJob(tx, tenantId, filter, rows.length);
      if (inserted)
        tx.afterCommit(() =>
          this.run(
            tenantId,
            inserted.id,
            filter,
            rows.map((r) => r.id),
          ),
        );
      return inserted;
    });
    if (!job) {
      const running = await runningJob(this.db, tenantId);
      throw new ApiError(
        409,
        'replay_in_progress',
        `A replay of this sandbox's deliveries is already running (${running?.id ?? 'just started'}); follow it or cancel it first.`,
        {
          extra: { jobId: running?.id ?? null },
        },
      );
    }
    return job;
  }

  async get(tenantId: string, id: string): Promise<DlqReplayJob> {
    return (await getJob(this.db, tenantId, id)) ?? throwNotFound();
  }

  list(tenantId: string, limit: number, after?: { key: string | number; id: string }): Promise<DlqReplayJob[]> {
    return listJobs(this.db, tenantId, limit, after);
  }

  /** Stops a running job: no new replays start; those in flight finish and are counted. Cancelling twice is fine. */
  async cancel(tenantId: string, id: string): Promise<DlqReplayJob> {
    const cancelled = await cancelJob(this.db, tenantId, id);
    const run = this.local.get(key(tenantId, id));
    if (cancelled && run) run.stopped = true;
    if (cancelled) return cancelled;
    const job = await this.get(tenantId, id);
    if (job.state === 'cancelled') return job;
    throw new ApiError(
      409,
      'replay_not_running',
      `Replay ${id} is ${job.state}; only a running replay can be cancelled.`,
      { extra: { currentState: job.state } },
    );
  }

  /** A reset or delete of the sandbox removed its jobs: stop working on them here. */
  forgetTenant(tenantId: string): void {
    for (const run of this.local.values()) if (run.tenantId === tenantId) run.stopped = true;
  }

  /** Engine shutdown: the jobs running here stop and say so (interrupted) while the database is still open. */
  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.local.values()];
    for (const run of runs) run.stopped = true;
    await Promise.all(
      runs.map((run) => finishJob(this.db, run.tenantId, run.id, run.counts, 'interrupted').catch(() => {})),
    );
  }

  /** Resolves once the job running here (if any) has finished: for tests and shutdown ordering. */
  async settled(tenantId: string, id: string): Promise<void> {
    await this.local.get(key(tenantId, id))?.finished;
  }

  /** The job's work starts outside the request's transaction that started it (src/db/ambient.ts). */
  private run(tenantId: string, id: string, filter: ReplayFilter, ids: string[]): void {
    detached(this.db, () => this.runDetached(tenantId, id, filter, ids));
  }

  private runDetached(tenantId: string, id: string, filter: ReplayFilter, ids: string[]): void {
    const run: LocalRun = {
      tenantId,
      id,
      counts: { succeeded: 0, failed: 0, skipped: 0 },
      stopped: false,
      finished: Promise.resolve(),
    };
    this.local.set(key(tenantId, id), run);
    let writing = false;
    const heartbeat = setInterval(async () => {
      if (writing) return;
      writing = true;
      try {
        // Cancelled on another engine, interrupted, or removed by a reset: stop starting replays.
        if ((await recordProgress(this.db, tenantId, id, run.counts)) !== 'running') run.stopped = true;
      } catch (err) {
        if (!this.closed) this.onError(`DLQ replay ${id}: recording progress failed: ${err}`);
      } finally {
        writing = false;
      }
    }, this.options.progressEveryMs);
    let next = 0;
    const worker = async () => {
      while (!run.stopped && next < ids.length) {
        const outcome = await this.replayOne(run, ids[next++], filter).catch((err): Outcome => {
          if (!this.closed) this.onError(`DLQ replay ${id}: ${err}`);
          return 'failed';
        });
        run.counts[outcome]++;
      }
    };
    run.finished = Promise.all(Array.from({ length: Math.min(this.options.concurrency, ids.length) }, worker))
      .then(async () => {
        clearInterval(heartbeat);
        if (!this.closed) await finishJob(this.db, tenantId, id, run.counts, 'completed');
      })
      .catch((err) => this.onError(`DLQ replay ${id} failed: ${err}`))
      .finally(() => {
        clearInterval(heartbeat);
        this.local.delete(key(tenantId, id));
      });
  }

  /**
   * One delivery, if it still has a status the filter names: with `to`, a new delivery made from it sent
   * there (docs/decisions/replay-to-another-url.md); else a dead or succeeded one gets a replay (an extra
   * attempt outside its cycle, SPEC §5.3), a pending one its next slot now (a manual retry; the wake-up
   * scheduled for that slot finds it taken).
   */
  private async replayOne(run: LocalRun, id: string, filter: ReplayFilter): Promise<Outcome> {
    const { tenantId } = run;
    const state = await this.dispatcher.loadState(tenantId, id);
    if (!state) return 'skipped';
    const status = state.status as ReplayCandidate['status'];
    const named =
      filter.statuses.includes(status) ||
      (status === 'pending' && filter.statuses.includes('failed') && state.attemptCount > 0);
    if (!named) return 'skipped';
    if (filter.to) return this.replayTo(run, id, filter.to);
    // Claimed like any attempt: one in flight anywhere (a lease) means this one is skipped.
    const result = await this.dispatcher.attempt(
      state,
      status === 'pending' ? 'manual' : 'replay',
      this.clock.nowMs(tenantId),
      {
        statuses: [status],
        attemptCount: state.attemptCount,
      },
    );
    return outcomeOf(result);
  }

  /** A resend to `to`, counted by its first attempt; skipped when the original's endpoint was deleted meanwhile. */
  private async replayTo(run: LocalRun, id: string, to: string): Promise<Outcome> {
    let resent: QueuedDelivery;
    try {
      resent = await this.resendTo(run.tenantId, id, to);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) return 'skipped';
      throw err;
    }
    const result = await this.dispatcher.attemptNew(resent);
    // The new delivery is this job's even when its first attempt was not: its insert found the target's lock
    // busy and took no lease, so the claim loop (here or on another engine) may have sent it first.
    if (result.skipped === 'in_flight' || result.skipped === 'lost_lease') return this.firstAttemptOf(run, resent.id);
    return outcomeOf(result);
  }

  /**
   * Waits for a delivery's first attempt, made elsewhere, and counts it; skipped if the job stops first, or if the
   * delivery left `pending` without an attempt (quarantined: it will never have one).
   */
  private async firstAttemptOf(run: LocalRun, id: string): Promise<Outcome> {
    for (;;) {
      const state = await this.dispatcher.loadState(run.tenantId, id);
      if (!state) return 'skipped';
      if (state.attemptCount > 0) return state.status === 'succeeded' ? 'succeeded' : 'failed';
      if (state.status !== 'pending' || run.stopped || this.closed) return 'skipped';
      await setTimeout(this.options.progressEveryMs / 10);
    }
  }
}

const outcomeOf = (result: AttemptResult): Outcome =>
  result.skipped ? 'skipped' : result.status === 'succeeded' ? 'succeeded' : 'failed';

const key = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;

function throwNotFound(): never {
  throw notFound('DLQ replay');
}
