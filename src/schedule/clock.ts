import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Invalidations } from '../db/invalidations.ts';
import { ApiError } from '../shared/problem.ts';

/**
 * The sandbox clock: each sandbox runs at real time plus its own offset (SPEC §5.5).
 * Offsets live in tenants.clock_offset_ms and are mirrored here so `now()` stays synchronous.
 * A clock advance saves each step as it goes (`stepTo`); a reset writes 0 in its own
 * transaction and then calls `setOffset`. The database announces every save (src/db/cache-registry.ts),
 * so every engine on it reads the same time (each sets the offset in memory when the announcement arrives).
 */
/**
 * How long an advance's mark holds without renewal: a crashed advance holds its sandbox's real-time work this long at
 * most.
 */
const advancingMarkMs = 60_000;
/** How long a second advance of a sandbox waits for the first to end before answering 409 advance_in_progress. */
const advanceQueueMs = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SQL: the tenants row `alias` carries no live mark of an advance (SandboxClock.whileAdvancing), so
 * real-time work may run its due work; while marked, that advance runs it.
 */
export const notAdvancingSql = (alias: string) =>
  `(${alias}.advancing_until is null or ${alias}.advancing_until < now())`;

export class SandboxClock {
  private readonly offsets = new Map<string, number>();
  private db?: Db;

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Loads every non-zero offset and keeps `db` to save later steps to; call once at start. */
  async load(db: Db, invalidations: Invalidations): Promise<void> {
    this.db = db;
    invalidations.on('clock', {
      drop: (message) => this.heard(String(message.tenantId), Number(message.offsetMs)),
      // A gap in notifications: read them all again (the old ones serve until the new ones are in).
      dropAll: () => void this.reload(db).catch(() => {}),
    });
    await this.reload(db);
  }

  private async reload(db: Db): Promise<void> {
    const rows = await db.query<{ id: string; clock_offset_ms: number }>(
      'select id, clock_offset_ms from tenants where clock_offset_ms <> 0',
    );
    this.offsets.clear();
    for (const row of rows) this.offsets.set(row.id, row.clock_offset_ms);
  }

  /** Reads one sandbox's offset from the database (before an advance: another engine's may not have been heard yet). */
  async refresh(tenantId: string): Promise<void> {
    if (!this.db) return;
    const [row] = await this.db.query<{ clock_offset_ms: number }>(
      'select clock_offset_ms from tenants where id = $1',
      [tenantId],
    );
    if (row) this.setOffset(tenantId, row.clock_offset_ms);
  }

  real(): number {
    return this.realNow();
  }

  offsetMs(tenantId: string): number {
    return this.offsets.get(tenantId) ?? 0;
  }

  /** Sandbox now in epoch milliseconds. */
  nowMs(tenantId: string): number {
    return this.realNow() + this.offsetMs(tenantId);
  }

  now(tenantId: string): Date {
    return new Date(this.nowMs(tenantId));
  }

  /**
   * An offset the database announced. Offsets only move forward but for a reset, which the sandbox's
   * lifecycle applies (forget): an announcement arriving after a later step of an advance on this engine
   * must not set a known offset back. A sandbox this engine holds no offset for takes the announced one as
   * it is, below zero too: an imported sandbox resumes its file's clock, which may be behind real time.
   */
  heard(tenantId: string, offsetMs: number): void {
    const known = this.offsets.get(tenantId);
    this.setOffset(tenantId, known === undefined ? offsetMs : Math.max(known, offsetMs));
  }

  /** Sets the offset in memory only: the caller has written it to tenants already (a reset). */
  setOffset(tenantId: string, offsetMs: number): void {
    if (offsetMs === 0) this.offsets.delete(tenantId);
    else this.offsets.set(tenantId, offsetMs);
  }

  /**
   * Moves the offset forward to `offsetMs` (never backwards) and saves it before returning,
   * so work run as of the new time never outlives, in a crash, the clock it assumed.
   */
  async stepTo(tenantId: string, offsetMs: number): Promise<void> {
    const next = Math.max(this.offsetMs(tenantId), offsetMs);
    if (next === this.offsetMs(tenantId)) return;
    this.setOffset(tenantId, next);
    await this.persist(tenantId);
  }

  /** Saves the tenant's offset (the database tells every engine). */
  private async persist(tenantId: string): Promise<void> {
    if (!this.db) return;
    const offsetMs = Math.round(this.offsetMs(tenantId));
    await this.db.query('update tenants set clock_offset_ms = $2 where id = $1', [tenantId, offsetMs], {
      prepare: true,
    });
  }

  /**
   * Marks the sandbox as advancing in the database while `work` runs (renewed as it goes), so the
   * real-time claims of every engine leave its due work to this advance. The mark waits for claims
   * already under way (they hold the tenant row), so none of theirs slips past the advance's wait.
   * The mark is also the advance's turn (docs/decisions/clock-advances-take-turns-by-their-mark.md): it is taken only
   * when free, so a second advance of the sandbox, on any engine, waits for it — asking again, holding no connection —
   * and after `advanceQueueMs` answers 409 advance_in_progress.
   */
  async whileAdvancing<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const db = this.db;
    if (!db) return work();
    const token = randomUUID();
    const until = `clock_timestamp() + ${advancingMarkMs} * interval '1 ms'`;
    const take = async () =>
      (
        await db.query(
          `update tenants set advancing_until = ${until}, advancing_owner = $2
        where id = $1 and (advancing_until is null or advancing_until < now()) returning id`,
          [tenantId, token],
        )
      ).length === 1;
    const deadline = Date.now() + advanceQueueMs;
    for (let delay = 20; !(await take()); delay = Math.min(delay * 2, 250)) {
      if (Date.now() + delay > deadline) {
        throw new ApiError(
          409,
          'advance_in_progress',
          'Another clock advance of this sandbox is still running; try again when it has finished.',
          { headers: { 'Retry-After': '1' } },
        );
      }
      await sleep(delay);
    }
    const own = (set: string) =>
      db.query(`update tenants set ${set} where id = $1 and advancing_owner = $2`, [tenantId, token]);
    const renew = setInterval(() => void own(`advancing_until = ${until}`).catch(() => {}), advancingMarkMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(renew);
      const clear = () => own('advancing_until = null, advancing_owner = null');
      // The database away at the end: clear the mark once it is back (it would run out by itself, but later).
      await clear().catch(() => void retryFor(advancingMarkMs, clear));
    }
  }

  forget(tenantId: string): void {
    this.offsets.delete(tenantId);
  }
}

/** Tries fn every second until it succeeds or `ms` has passed (background clean-up after an outage). */
function retryFor(ms: number, fn: () => Promise<unknown>): void {
  const deadline = Date.now() + ms;
  const again = () =>
    setTimeout(() => void fn().catch(() => (Date.now() < deadline ? again() : undefined)), 1_000).unref();
  again();
}
