import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import { faultOf } from '../db/errors.ts';
import { monotonicNow } from '../shared/monotonic.ts';

/** The database as this engine last saw it (GET /api/v1/health says it; the inspector shows a banner). */
export type DatabaseState = 'ok' | 'unavailable' | 'storage_full';

export interface LivenessOptions {
  /** How long one heartbeat vouches for the engine; it beats ten times as often. */
  aliveMs: number;
  /** One engine per database (PGlite): every other owner named on a lease is a previous run of this one. */
  exclusive: boolean;
  onError: (message: string) => void;
}

/** An attempt starts only while the last heartbeat vouches for it this long past its timeout (a beat missed). */
export const beatSlackMs = 2_000;

/**
 * How long a heartbeat vouches for an engine whose attempts may take `attemptMs`: at least `wanted`, and long enough
 * that just before the next beat (a tenth of it later, on a shared database) it still covers a whole attempt, its
 * slack and 2 s for the beat's own round trip. Shorter, every attempt that falls late in a beat's interval would wait
 * for the next beat before it leaves (`DeliveryLeases.readyToSend`).
 */
export const heartbeatAliveMs = (wanted: number, attemptMs: number) =>
  Math.max(wanted, Math.ceil(((attemptMs + beatSlackMs + 2_000) * 10) / 9));

const beatSql = `insert into engine_heartbeats (engine_id, alive_until) values ($1, clock_timestamp() + $2::int * interval '1 ms')
  on conflict (engine_id) do update set alive_until = excluded.alive_until`;

/**
 * This engine's heartbeat (docs/decisions/liveness-is-a-heartbeat-row-not-a-session-lock.md): a row in
 * engine_heartbeats renewed every aliveMs / 10 through the pool, so no connection has to stay open for the engine to
 * count as alive, and a database restart or a dropped connection does not make it look dead to the others.
 *
 * Two things follow from it. Other engines' leases (expired, or held by an engine whose heartbeat has
 * lapsed) are taken over only once this engine has itself seen the database answer three beats in a
 * row (`settled()`): after an outage every engine's heartbeat may have lapsed, and a live one must
 * first get the chance to beat again and record what it finished meanwhile. And this
 * engine starts an attempt only while its own last heartbeat still vouches for it long enough
 * (`aliveRoomMs()`), so it is not judged dead while the attempt is under way.
 */
export class EngineLiveness {
  /**
   * When the current unbroken run of prompt heartbeats began (monotonic: src/shared/monotonic.ts); undefined while
   * they fail.
   */
  private healthySince?: number;
  /**
   * When the last heartbeat that landed was sent: the others see this engine alive until aliveMs after it, at
   * least.
   */
  private lastBeatSentAt = Number.NEGATIVE_INFINITY;
  private timer?: NodeJS.Timeout;
  private waiters: ((ok: boolean) => void)[] = [];
  private closed = false;
  private stopping = false;
  /** What the last heartbeat found: the database answering, away, or out of disk. */
  private state: DatabaseState = 'ok';

  constructor(
    private readonly db: Db,
    readonly owner: string,
    private readonly options: LivenessOptions,
  ) {}

  /** One engine per database (PGlite): no other engine can be alive. */
  get exclusive(): boolean {
    return this.options.exclusive;
  }

  /**
   * Beats once (the database must answer: the engine is starting) and keeps beating until close().
   * Rows of engines gone for an hour only say so: it drops them (no row means the same as a lapsed one);
   * at each engine's start is often enough (the claim loop's poll did it every 2 s): an engine that went
   * away leaves just its one row, which the next engine to start drops.
   */
  async start(): Promise<void> {
    await this.beat(true);
    await this.db
      .query(`delete from engine_heartbeats where alive_until < now() - interval '1 hour'`)
      .catch((err) =>
        this.options.onError(`dropping the heartbeats of engines long gone failed: ${(err as Error)?.message ?? err}`),
      );
  }

  /** The engine is shutting down: nothing waits for a heartbeat any more (it keeps beating until close()). */
  stopWaiting(): void {
    this.stopping = true;
    for (const wake of this.waiters.splice(0)) wake(false);
  }

  /** Stops beating and removes the row: the leases this engine still holds are free for the others at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWaiting();
    clearTimeout(this.timer);
    await this.db.query('delete from engine_heartbeats where engine_id = $1', [this.owner]).catch(() => undefined);
  }

  /** How long from now the others will still see this engine alive, at the least (0 or less: they may not). */
  aliveRoomMs(): number {
    // Alone on its database, no one else could take its leases over.
    if (this.options.exclusive) return Number.POSITIVE_INFINITY;
    return this.lastBeatSentAt + this.options.aliveMs - monotonicNow();
  }

  /** What the last heartbeat found (every aliveMs / 10 while it answers, sooner while it does not). */
  databaseState(): DatabaseState {
    return this.state;
  }

  /** Since when this engine has heard the database answer without a break (a lease taken before then is re-checked). */
  trustedSince(): number {
    return this.healthySince ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Whether other engines' expired or orphaned leases may be taken over now: this engine has heard the
   * database answer for three heartbeats in a row, in which time a live engine (which beats again as
   * soon as the database answers, and writes the outcomes it kept at once) has renewed its heartbeat.
   */
  settled(): boolean {
    return (
      this.options.exclusive ||
      (this.healthySince !== undefined && monotonicNow() - this.healthySince >= this.beatMs * 3)
    );
  }

  /**
   * How often it beats while the database answers. Alone on its database (a laptop's PGlite) the beat
   * only tells health, so it writes five times less often.
   */
  private get beatMs(): number {
    return this.options.aliveMs / (this.options.exclusive ? 2 : 10);
  }

  /** Resolves true at the next heartbeat that lands, false after timeoutMs (or on close). */
  nextBeat(timeoutMs: number): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(ok);
      };
      this.waiters.push(done);
    });
  }

  private async beat(first = false): Promise<void> {
    const sentAt = monotonicNow();
    try {
      await this.db.query(beatSql, [this.owner, this.options.aliveMs], { prepare: true });
      this.lastBeatSentAt = sentAt;
      this.state = 'ok';
      // A beat that took a quarter of the alive period is not "the database answering": a stall, not health.
      const prompt = monotonicNow() - sentAt < this.options.aliveMs / 4;
      if (!prompt) this.healthySince = undefined;
      else this.healthySince ??= sentAt;
      for (const wake of this.waiters.splice(0)) wake(true);
    } catch (err) {
      if (first) throw err;
      this.state = faultOf(err) === 'storage_full' ? 'storage_full' : 'unavailable';
      if (this.healthySince !== undefined)
        this.options.onError(`engine heartbeat failed: ${(err as Error)?.message ?? err}`);
      this.healthySince = undefined;
    }
    // While beats fail, try again sooner: the first one that lands lets held work go on.
    if (!this.closed) this.schedule(this.healthySince === undefined ? this.beatMs / 4 : this.beatMs);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = detached(this.db, () => setTimeout(() => void this.beat(), delayMs));
    this.timer.unref();
  }
}
