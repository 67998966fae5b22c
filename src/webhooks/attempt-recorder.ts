import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import { isUnavailable } from '../db/errors.ts';
import { isRowFault } from './quarantine.ts';
import { monotonicNow } from '../shared/monotonic.ts';
import type { Attempt } from '../shared/api-types.ts';

type SchemeFields = 'signature' | 'signatureHeaders' | 'retryAfter' | 'disabledEndpoint';

export interface AttemptRecord {
  tenantId: string;
  deliveryId: string;
  /** The lease the attempt ran under: recorded only if the delivery is still leased to `owner` for this slot. */
  lease: { owner: string; slot: number };
  /**
   * The attempt as the API shows it, its start still a Date (an attempt with no scheme noted was signed Sandbay's
   * way); its traceparent is derived from the delivery and the number, not stored (./tracing/trace-context.ts).
   */
  attempt: Omit<Attempt, 'startedAt' | 'traceparent' | SchemeFields> & { startedAt: Date } & Partial<
      Pick<Attempt, SchemeFields>
    >;
  delivery: {
    status: 'pending' | 'succeeded' | 'dead';
    attemptCount: number;
    cycleAttempts: number;
    nextAttemptAt: Date | null;
    updatedAt: Date;
  };
}

/** What the receiver's answer did to the schedule, as stored (null when nothing). */
function scheduleNote(a: AttemptRecord['attempt']): object | null {
  if (!a.retryAfter && !a.disabledEndpoint) return null;
  return {
    ...(a.retryAfter ? { retryAfter: a.retryAfter } : {}),
    ...(a.disabledEndpoint ? { disabledEndpoint: true } : {}),
  };
}

/**
 * The batch statement's columns and their types: each is sent as one array (Convoy's `insert … select from unnest`),
 * which PostgreSQL reads far faster than a JSON document of rows. JSON values go as text, cast back in the statement;
 * the scheme list as one comma-joined text (unnest cannot take arrays of arrays).
 */
const columns = {
  tenant_id: 'text',
  delivery_id: 'text',
  lease_owner: 'text',
  lease_slot: 'int',
  number: 'int',
  trigger: 'text',
  url: 'text',
  started_at: 'timestamptz',
  duration_ms: 'int',
  signature_header: 'text',
  response_status: 'int',
  response_headers: 'text',
  response_body: 'text',
  error: 'text',
  chaos: 'text',
  signature: 'text',
  signature_headers: 'text',
  schedule_note: 'text',
  status: 'text',
  attempt_count: 'int',
  cycle_attempts: 'int',
  next_attempt_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;

type Row = Record<keyof typeof columns, string | number | null>;

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** A record as the batch statement's row; throws for a date that has no ISO form (an Invalid Date). */
function rowOf({ tenantId, deliveryId, lease, attempt: a, delivery: d }: AttemptRecord): Row {
  return {
    tenant_id: tenantId,
    delivery_id: deliveryId,
    lease_owner: lease.owner,
    lease_slot: lease.slot,
    number: a.number,
    trigger: a.trigger,
    url: a.url,
    started_at: a.startedAt.toISOString(),
    duration_ms: a.durationMs,
    signature_header: a.signatureHeader,
    response_status: a.responseStatus,
    response_headers: json(a.responseHeaders),
    response_body: a.responseBody,
    error: a.error,
    chaos: json(a.chaos),
    signature: (a.signature ?? ['sandbay']).join(','),
    signature_headers: json(a.signatureHeaders),
    schedule_note: json(scheduleNote(a)),
    status: d.status,
    attempt_count: d.attemptCount,
    cycle_attempts: d.cycleAttempts,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    updated_at: d.updatedAt.toISOString(),
  };
}

const names = Object.keys(columns) as (keyof typeof columns)[];
/** `unnest($1::text[], $2::text[], …) as r(tenant_id, …)`: the batch's rows from its column arrays. */
const unnestRows = `unnest(${names.map((n, i) => `$${i + 1}::${columns[n]}[]`).join(', ')}) as r(${names.join(', ')})`;

/**
 * Why a batch was written: `idle`, no batch had been written for `burstGapMs` when its first record came (a lone
 * attempt is written at once, never held to fill a batch); `timer`, it came in a burst (a write under way or just
 * done) and gathered for `burstGapMs` first, as the write in flight gathers nothing on PGlite, whose statements run
 * on this thread; `count`, it reached `maxBatchRows` first.
 */
export type FlushReason = 'idle' | 'timer' | 'count';

/** How long a batch gathers in a burst, and how recent a write makes one (a few ms: half the per-row cost). */
const burstGapMs = 5;

/** Rows per statement at most: a burst larger than this is written in several, back to back. */
const maxBatchRows = 500;

// While the database cannot be reached, a batch is written again after this, doubling up to the cap.
const retryFirstMs = 100;
const retryMaxMs = 1_000;

interface Pending {
  record: AttemptRecord;
  done: (kept: boolean) => void;
  fail: (err: unknown) => void;
}

/**
 * Writes attempt results in batches: everything finished since the last write goes in one
 * statement (one multi-row update, one multi-row insert), so thousands of attempts a second
 * cost a few statements. A result is written only if its engine still holds the delivery's
 * lease for that attempt slot, which the write clears; one whose lease was lost (expired and
 * taken by another engine, or the delivery removed by a reset) is dropped: that attempt stands.
 *
 * An outcome that cannot be written because the database is away
 * (docs/decisions/an-outcome-the-database-could-not-take-is-kept.md) is kept in memory and written when it is back,
 * still under its lease: the receiver has had that slot, so sending it again would repeat it. Other engines leave the
 * lease alone meanwhile (leases.ts).
 */
export class AttemptRecorder {
  private buffer: Pending[] = [];
  private scheduled = false;
  /** Batches taken and not yet settled (written, held or failed): while any is, new records queue behind it. */
  private writing = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** Batches written since start, by why each went (FlushReason). */
  readonly flushes: Record<FlushReason, number> = { idle: 0, timer: 0, count: 0 };
  /** When the last write ended (monotonic ms). */
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** Results kept through an outage, written again before anything newer. */
  private held: Pending[] = [];
  private retryMs = retryFirstMs;
  private giveUp = false;

  constructor(
    private readonly db: Db,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  /** Resolves once the batch is committed: true if the record was written, false if its lease was lost. */
  record(record: AttemptRecord): Promise<boolean> {
    return new Promise((done, fail) => {
      this.buffer.push({ record, done, fail });
      if (this.buffer.length >= maxBatchRows) return this.flushNext('count');
      if (this.scheduled) return;
      this.scheduled = true;
      const burst = this.writing > 0 || monotonicNow() - this.lastWriteAt < burstGapMs;
      // Idle: the next turn of the event loop (the attempts that finished in this one share the write), nothing
      // waits for more to come. Never inside a keyed request's transaction.
      detached(this.db, () => {
        const go = () => {
          this.scheduled = false;
          this.flushNext(burst ? 'timer' : 'idle');
        };
        if (burst) setTimeout(go, burstGapMs);
        else setImmediate(go);
      });
    });
  }

  /** Resolves when everything recorded so far is written (or given up on: `giveUpAfter`). */
  async drain(): Promise<void> {
    while (this.buffer.length > 0 || this.held.length > 0 || this.scheduled) {
      await new Promise((r) => setTimeout(r, this.held.length > 0 ? 20 : 0));
      await this.flushing;
    }
    await this.flushing;
  }

  /**
   * The engine is closing: what the database (away) has not taken `ms` from now is given up on, so that
   * shutting down never waits for it for ever. Those attempts are sent again once their leases expire.
   */
  giveUpAfter(ms: number): void {
    detached(this.db, () =>
      setTimeout(() => {
        this.giveUp = true;
        const lost = this.held.splice(0);
        if (lost.length > 0)
          this.onError(`the database was away until shutdown: ${lost.length} attempt outcome(s) not recorded`);
        for (const item of lost) item.fail(new Error('the database was away until shutdown: outcome not recorded'));
      }, ms),
    ).unref();
  }

  /** Writes again what an outage held back, once the database answers. */
  private retryHeld(): void {
    if (this.giveUp) return;
    detached(this.db, () => setTimeout(() => this.flushNext('timer'), this.retryMs));
    this.retryMs = Math.min(this.retryMs * 2, retryMaxMs);
  }

  /**
   * Queues a flush after the one under way; it takes what has gathered by the time it starts (up to maxBatchRows).
   * flush() settles every record it takes, so the chain never rejects.
   */
  private flushNext(reason: FlushReason): void {
    this.writing++;
    this.flushing = this.flushing
      .then(() => this.flush(reason))
      .finally(() => {
        this.writing--;
        this.lastWriteAt = monotonicNow();
      });
  }

  /** Writes what has gathered, batch after batch while more than one batch's worth waits (none is left behind). */
  private async flush(reason: FlushReason): Promise<void> {
    for (let why = reason; ; why = 'count') {
      const taken = [...this.held.splice(0), ...this.buffer.splice(0, maxBatchRows)];
      if (taken.length === 0) return;
      this.flushes[why]++;
      // A record that cannot be written (an Invalid Date from its sandbox's clock) fails alone: the rest are written.
      const batch: Pending[] = [];
      const rows: Row[] = [];
      for (const item of taken) {
        try {
          rows.push(rowOf(item.record));
          batch.push(item);
        } catch (err) {
          item.fail(err);
        }
      }
      if (batch.length > 0) await this.write(batch, rows);
      // Fewer than a batch's worth left: the flush queued after them takes them. Held through an outage: the retry.
      if (this.buffer.length < maxBatchRows || this.held.length > 0) return;
    }
  }

  /**
   * Writes a batch; one that fails for a row's sake (a timestamp PostgreSQL cannot hold) is written again row by
   * row.
   */
  private async write(batch: Pending[], rows: Row[]): Promise<void> {
    try {
      // One statement (atomic on its own): update the deliveries still leased for these slots,
      // then insert the attempts of those — a reset may have removed some, a lease may have expired.
      const written = await this.db.query<{ tenant_id: string; delivery_id: string }>(
        `with r as (
           select * from ${unnestRows}
         ), updated as (
           update deliveries d set status = r.status, attempt_count = r.attempt_count, cycle_attempts = r.cycle_attempts,
                  next_attempt_at = r.next_attempt_at, last_status = r.response_status, last_error = r.error, updated_at = r.updated_at,
                  lease_owner = null, lease_until = null, lease_slot = null
             from r where d.tenant_id = r.tenant_id and d.id = r.delivery_id
               and d.lease_owner = r.lease_owner and d.lease_slot = r.lease_slot and d.attempt_count = r.lease_slot - 1
           returning d.tenant_id, d.id
         ), inserted as (
         insert into attempts (tenant_id, delivery_id, number, trigger, url, started_at, duration_ms, signature_header,
                               response_status, response_headers, response_body, error, chaos, signature, signature_headers, schedule_note)
         select r.tenant_id, r.delivery_id, r.number, r.trigger, r.url, r.started_at, r.duration_ms, r.signature_header,
                r.response_status, r.response_headers::jsonb, r.response_body, r.error, r.chaos::jsonb,
                string_to_array(r.signature, ','), r.signature_headers::jsonb, r.schedule_note::jsonb
           from r join updated u on u.tenant_id = r.tenant_id and u.id = r.delivery_id
         on conflict do nothing
         )
         select tenant_id, id as delivery_id from updated`,
        names.map((n) => rows.map((r) => r[n])),
        { prepare: true },
      );
      const kept = new Set(written.map((w) => `${w.tenant_id}\u0000${w.delivery_id}`));
      if (this.retryMs > retryFirstMs)
        this.onError(`database back: ${batch.length} attempt outcome(s) kept through the outage recorded`);
      this.retryMs = retryFirstMs;
      for (const item of batch) item.done(kept.has(`${item.record.tenantId}\u0000${item.record.deliveryId}`));
    } catch (err) {
      if (isUnavailable(err) && !this.giveUp) {
        if (this.retryMs === retryFirstMs)
          this.onError(`database away: keeping ${batch.length} attempt outcome(s) to record when it is back`);
        this.held.push(...batch);
        this.retryHeld();
        return;
      }
      if (batch.length > 1 && isRowFault(err)) {
        for (let i = 0; i < batch.length; i++) await this.write([batch[i]], [rows[i]]);
        return;
      }
      for (const item of batch) item.fail(err);
    }
  }
}
