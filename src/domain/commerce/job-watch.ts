import type { Db } from '../../db/database.ts';
import type { DueJob, Scheduler } from '../../schedule/scheduler.ts';
import { jobsChannel } from './deps.ts';
import { overdueJobs, type ColumnJob } from './jobs.ts';

/** How often an engine looks for column jobs that are due and that no engine has run (default). */
const defaultJobPollMs = 5_000;
// One poll hands at most this many to the scheduler; the next poll takes the rest.
const pollLimit = 500;

/**
 * Keeps this engine's scheduler aware of the column jobs every engine on the database scheduled
 * (team mode): another engine's NOTIFY on scheduling puts the job in this engine's queue too, and a
 * slow poll of what is due by each sandbox's clock catches anything missed (an engine that scheduled
 * a job and stopped before it was due, a missed notification, a run that skipped a locked row).
 * Several engines may then find one job due: its run takes the row FOR UPDATE SKIP LOCKED and checks
 * the row still owes it, so exactly one runs it.
 */
export class ColumnJobWatch {
  private timer?: NodeJS.Timeout;
  private stopListening?: () => Promise<void>;
  private offMissed?: () => void;
  private polling?: Promise<void>;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly scheduler: Scheduler,
    private readonly jobs: ColumnJob[],
    private readonly onError: (message: string) => void,
    private readonly pollMs = defaultJobPollMs,
  ) {}

  /** Listens for other engines' jobs and starts the poll. */
  async start(): Promise<void> {
    const kinds = new Set(this.jobs.map((j) => j.kind));
    this.stopListening = await this.db.listen(jobsChannel, (payload) => {
      const job = parseJob(payload);
      if (job && kinds.has(job.kind) && !this.closed) this.scheduler.schedule(job);
    });
    this.offMissed = this.db.onNotificationsMissed(() => void this.poll());
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  /** Hands every column job due now to the scheduler (those it already holds are simply replaced). */
  poll(): Promise<void> {
    this.polling ??= overdueJobs(this.db, this.jobs, pollLimit)
      .then((due) => {
        if (!this.closed) for (const job of due) this.scheduler.schedule(job);
      })
      .catch((err) => this.onError(`polling due jobs failed: ${(err as Error)?.message ?? err}`))
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.offMissed?.();
    await this.stopListening?.();
    await this.polling;
  }
}

function parseJob(payload: string): DueJob | undefined {
  try {
    const job = JSON.parse(payload) as DueJob;
    const ok =
      typeof job.kind === 'string' &&
      typeof job.tenantId === 'string' &&
      typeof job.id === 'string' &&
      Number.isFinite(job.dueAt);
    return ok ? { kind: job.kind, tenantId: job.tenantId, id: job.id, dueAt: job.dueAt } : undefined;
  } catch {
    return undefined;
  }
}
