import type { SandboxClock } from './clock.ts';
import { MinHeap } from './heap.ts';

/** Work due at a sandbox time: a webhook retry, a quote expiry, a payout retry, a report. */
export interface DueJob<D = unknown> {
  kind: string;
  tenantId: string;
  /** Unique within kind + tenant; scheduling the same id again replaces the job. */
  id: string;
  /** Sandbox time it falls due, epoch ms. */
  dueAt: number;
  /** Whatever the handler wants to keep in memory (it must also be able to do without). */
  data?: D;
}

export interface JobHandler {
  /** The jobs persisted for this kind, to rebuild the in-memory queue at start. */
  load(): Promise<DueJob[]>;
  /**
   * Runs the job as of sandbox time `asOf`; resolves once its results are stored and
   * its follow-ups scheduled (the clock advance relies on that).
   */
  run(job: DueJob, asOf: number): Promise<void>;
  /**
   * The sandbox's jobs due by `upTo` as the database has them (work other engines scheduled
   * included), for an advance to run: at least those within `windowMs` of the earliest (the next
   * batch); later ones may be left for the next call. A kind whose jobs live only in memory leaves it out.
   */
  due?(tenantId: string, upTo: number, windowMs: number): Promise<DueJob[]>;
  /**
   * Resolves when the sandbox's work of this kind in flight on other engines has finished (an advance waits for it).
   */
  settle?(tenantId: string): Promise<void>;
}

// A clock advance runs the jobs due within this much sandbox time of each other together
// (each still as of its own due time). Handlers never schedule follow-ups closer than this,
// so batching cannot reorder cause and effect.
const batchWindowMs = 1000;
const maxTimerMs = 2 ** 31 - 1;

const keyOf = (job: { kind: string; tenantId: string; id: string }) =>
  `${job.kind}\u0000${job.tenantId}\u0000${job.id}`;

/**
 * The due-jobs queue keyed by sandbox time (DESIGN.md, src/schedule). In real time a timer
 * runs jobs as they fall due; `advance` moves one sandbox's clock forward and runs what
 * falls due on the way in due-time order, as a discrete-event simulation (SPEC §5.5).
 */
export class Scheduler {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly jobs = new Map<string, DueJob>();
  private readonly byTenant = new Map<string, Set<string>>();
  private readonly heap = new MinHeap<{ key: string; job: DueJob }>();
  private readonly running = new Map<string, Set<Promise<void>>>();
  private readonly advancing = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  /**
   * `detach` runs the timer's set-up outside any request's ambient transaction (src/db/ambient.ts),
   * so jobs never join the transaction of the request that scheduled them.
   */
  constructor(
    private readonly clock: SandboxClock,
    private readonly onError: (err: unknown, job: DueJob) => void,
    private readonly detach: <T>(fn: () => T) => T = (fn) => fn(),
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Rebuilds the queue from every kind's persisted jobs and starts the real-time timer. */
  async start(): Promise<void> {
    for (const handler of this.handlers.values()) for (const job of await handler.load()) this.schedule(job);
    this.arm();
  }

  schedule(job: DueJob): void {
    this.remember(job);
    if (!this.advancing.has(job.tenantId)) this.arm();
  }

  private remember(job: DueJob): void {
    const key = keyOf(job);
    this.jobs.set(key, job);
    let keys = this.byTenant.get(job.tenantId);
    if (!keys) this.byTenant.set(job.tenantId, (keys = new Set()));
    keys.add(key);
    this.heap.push(this.realDue(job), { key, job });
  }

  cancel(kind: string, tenantId: string, id: string): boolean {
    const key = keyOf({ kind, tenantId, id });
    this.byTenant.get(tenantId)?.delete(key);
    return this.jobs.delete(key);
  }

  /**
   * Drops every job of a sandbox, of every kind (reset, delete): webhook attempts and commerce
   * jobs alike, since the reseeded rows owe none (docs/decisions/the-seed-owes-no-jobs.md). Stale heap entries are
   * skipped later.
   */
  cancelTenant(tenantId: string): void {
    for (const key of this.byTenant.get(tenantId) ?? []) this.jobs.delete(key);
    this.byTenant.delete(tenantId);
  }

  pending(tenantId: string): DueJob[] {
    return [...(this.byTenant.get(tenantId) ?? [])].map((k) => this.jobs.get(k)!).filter(Boolean);
  }

  /**
   * Counts work started outside the queue (a manual retry, a replay) as running for its
   * sandbox, so that an advance waits for it like for its own jobs (SPEC §5.5).
   */
  track<T>(tenantId: string, work: Promise<T>): Promise<T> {
    let set = this.running.get(tenantId);
    if (!set) this.running.set(tenantId, (set = new Set()));
    const ignore = () => {};
    const done: Promise<void> = work.then(ignore, ignore).finally(() => {
      set.delete(done);
      if (set.size === 0 && this.running.get(tenantId) === set) this.running.delete(tenantId);
    });
    set.add(done);
    return work;
  }

  /** Resolves when the sandbox's work running now (jobs and tracked attempts) has finished. */
  async settle(tenantId: string): Promise<void> {
    for (;;) {
      const set = this.running.get(tenantId);
      if (!set || set.size === 0) return;
      await Promise.allSettled([...set]);
    }
  }

  /**
   * Moves a sandbox's clock forward by `ms`, first waiting for its running work, and runs
   * everything that falls due on the way; what those jobs schedule runs too if it falls
   * due before the new now. Each step of the clock is saved before the work due at it runs,
   * so a crash mid-advance restarts at least as late as the work already done assumes.
   * Advances of one sandbox run one after another (a second one waits, then answers 409).
   */
  async advance(tenantId: string, ms: number): Promise<{ jobsRun: number }> {
    // The sandbox's advancing mark is the turn of one advance at a time, on any engine (this one included).
    return this.clock.whileAdvancing(tenantId, async () => {
      this.advancing.add(tenantId);
      try {
        // simulate() saves every step of the clock, its last included.
        return await this.simulate(tenantId, ms);
      } finally {
        this.advancing.delete(tenantId);
        this.rebuildHeap();
        this.arm();
      }
    });
  }

  /** Sandboxes whose clock an advance here is moving: real-time claims leave them to it. */
  advancingTenants(): string[] {
    return [...this.advancing];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running.values()].flatMap((s) => [...s]));
  }

  /** Waits for the sandbox's running work here and, for kinds that can tell, on every other engine. */
  private async settleEverywhere(tenantId: string): Promise<void> {
    await this.settle(tenantId);
    for (const handler of this.handlers.values()) await handler.settle?.(tenantId);
  }

  private async simulate(tenantId: string, ms: number): Promise<{ jobsRun: number }> {
    await this.settleEverywhere(tenantId);
    await this.clock.refresh(tenantId);
    const startOffset = this.clock.offsetMs(tenantId);
    const target = this.clock.nowMs(tenantId) + ms;
    let jobsRun = 0;
    // A job that threw in this advance is not run again in it: its row still owes the job, so `due` would hand it
    // back at every turn and the advance would never end (a row the engine cannot process must not stall it).
    const failed = new Set<string>();
    const failedKey = (j: DueJob) => `${j.kind}\u0000${j.id}`;
    for (;;) {
      // Work started outside the queue meanwhile (a manual retry, here or elsewhere) may schedule a follow-up due on
      // the way.
      await this.settleEverywhere(tenantId);
      for (const handler of this.handlers.values()) {
        if (handler.due) for (const job of await handler.due(tenantId, target, batchWindowMs)) this.remember(job);
      }
      const due = this.pending(tenantId)
        .filter((j) => j.dueAt <= target && !failed.has(failedKey(j)))
        .sort((a, b) => a.dueAt - b.dueAt);
      if (due.length === 0) break;
      const batch = due.filter((j) => j.dueAt <= due[0].dueAt + batchWindowMs);
      const batchEnd = batch[batch.length - 1].dueAt;
      // The sandbox clock steps to the batch (never backwards), so anything the jobs
      // read from it, and anything the API reads meanwhile, is as of that moment.
      await this.clock.stepTo(tenantId, batchEnd - this.clock.real());
      await Promise.all(batch.map((job) => this.runJob(job, job.dueAt, () => failed.add(failedKey(job)))));
      jobsRun += batch.length;
    }
    await this.clock.stepTo(tenantId, startOffset + ms);
    return { jobsRun };
  }

  private runJob(job: DueJob, asOf: number, failed?: () => void): Promise<void> {
    this.cancel(job.kind, job.tenantId, job.id);
    const handler = this.handlers.get(job.kind);
    if (!handler) return Promise.resolve();
    return this.track(
      job.tenantId,
      handler.run(job, asOf).catch((err) => {
        failed?.();
        this.onError(err, job);
      }),
    );
  }

  private realDue(job: DueJob): number {
    return job.dueAt - this.clock.offsetMs(job.tenantId);
  }

  private rebuildHeap(): void {
    this.heap.clear();
    for (const [key, job] of this.jobs) this.heap.push(this.realDue(job), { key, job });
  }

  /** Points the timer at the earliest job due in real time. */
  private arm(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const next = this.nextLive();
    if (!next) return;
    const delay = Math.min(Math.max(0, next.priority - this.clock.real()), maxTimerMs);
    this.timer = this.detach(() => setTimeout(() => this.tick(), delay));
    this.timer.unref();
  }

  private nextLive() {
    for (;;) {
      const top = this.heap.peek();
      if (!top) return undefined;
      const current = this.jobs.get(top.value.key);
      // Skip entries for jobs that were cancelled, rescheduled or belong to an advancing sandbox.
      if (current === top.value.job && !this.advancing.has(current.tenantId)) return top;
      this.heap.pop(); // an advancing sandbox's jobs come back when the heap is rebuilt after it
    }
  }

  private tick(): void {
    const now = this.clock.real();
    for (;;) {
      const next = this.nextLive();
      if (!next || next.priority > now) break;
      this.heap.pop();
      // Cannot reject: runJob() catches: the handler's error goes to onError.
      void this.runJob(next.value.job, this.clock.nowMs(next.value.job.tenantId));
    }
    this.arm();
  }
}
