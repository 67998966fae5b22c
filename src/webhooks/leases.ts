import type { Db, Queryable, Tx } from '../db/database.ts';
import { isUnavailable } from '../db/errors.ts';
import { beatSlackMs, type EngineLiveness } from './liveness.ts';
import type { Topic } from '../shared/topics.ts';
import { monotonicNow } from '../shared/monotonic.ts';
import { toState, type DeliveryRow } from './delivery-row.ts';
import type { QueuedDelivery } from './outbox.ts';
import { claimByIdSql, claimDueSql, dueTargetsSql, leaseNewSql, leaseUntil, named, usedSlots } from './lease-sql.ts';

export { noLiveLease } from './lease-sql.ts';

/** SPEC §5.2: attempts in flight per endpoint, across every engine on the database. */
export const maxInFlightPerEndpoint = 10;
/**
 * Leases one engine may hold on an endpoint while no other engine holds any: it sends them ten at a
 * time itself (its local turns), so the ten in flight still hold across engines, and a burst or an
 * advance's batch costs one claim, not one per attempt.
 */
export const soleHolderLeases = 200;

/** A delivery leased to this engine for one attempt slot, with what the attempt needs. */
export interface LeasedDelivery extends Pick<QueuedDelivery, 'signingEndpointId' | 'resentFrom'> {
  tenantId: string;
  id: string;
  endpointId: string | null;
  targetUrl: string | null;
  topic: Topic;
  body: string;
  /** The deliveryId the receiver sees when it is not `id` (a resend that kept the original's). */
  wireId?: string | null;
  attemptCount: number;
  cycleAttempts: number;
  /** The attempt number the lease is for (attemptCount + 1). */
  slot: number;
  /** The sandbox's now, from the database's clock and the sandbox's stored offset. */
  sandboxNowMs: number;
  /**
   * This engine's monotonic time (src/shared/monotonic.ts) just before the lease was asked for: its lease runs out
   * `leaseMs` later at the earliest.
   */
  leasedAt: number;
}

/** Why a delivery could not be claimed: its endpoint has ten in flight, or it is not claimable at all. */
export type ClaimRefusal = 'full' | 'unavailable';

/** Which deliveries a single claim accepts (a scheduled or manual attempt, or a replay). */
export interface ClaimCondition {
  statuses: ('pending' | 'dead' | 'succeeded')[];
  /** The attempts it must have had: a scheduled attempt for slot n is void once slot n ran elsewhere. */
  attemptCount?: number;
  /** Sandbox time it must be due by (a scheduled attempt's own time, or an advance's step). */
  dueBy?: number;
  /** A real-time attempt: not while an advance (on any engine) runs the sandbox's due work. */
  notAdvancing?: boolean;
}

/** A claimed delivery's row: what an attempt needs, and its sandbox's now. */
type Row = DeliveryRow & { sandbox_now_ms: number };

const toLeased =
  (leasedAt: number) =>
  (r: Row): LeasedDelivery => ({
    ...toState(r),
    slot: r.attempt_count + 1,
    sandboxNowMs: r.sandbox_now_ms,
    leasedAt,
  });

/** Where deliveries go: a registered endpoint, or (a test webhook) a bare URL. */
export interface Target {
  tenantId: string;
  endpointId: string | null;
  targetUrl: string | null;
}

/** Where a delivery goes: its endpoint, or for a test webhook its bare URL. */
export const targetOf = (d: { tenantId: string; endpointId: string | null; targetUrl: string | null }): Target => ({
  tenantId: d.tenantId,
  endpointId: d.endpointId,
  targetUrl: d.endpointId ? null : d.targetUrl,
});

export const targetKey = (t: Target) => `${t.tenantId}\u0000${t.endpointId ?? `url:${t.targetUrl}`}`;

/**
 * Leases on deliveries: the deliveries table is the queue every engine claims from
 * (docs/decisions/the-deliveries-table-is-the-queue-not-pg-boss-or.md). A claim takes `lease_until = now() + lease`
 * (the database's clock, which every engine shares) for the next attempt slot; claims of one endpoint take turns under
 * a transaction advisory lock, so its ten in-flight slots are never over-filled by two engines. Each engine beats a
 * heartbeat row while it runs (./liveness.ts): the live leases of an engine whose heartbeat has lapsed belong to a dead
 * engine and are released then, not only when they expire.
 */
export class DeliveryLeases {
  /** Deliveries this engine has finished sending and not yet recorded: they hold a lease but no slot. */
  private readonly sent = new Set<string>();
  /**
   * How much lease an attempt needs left when it starts: the attempt's timeout plus time to record it through a short
   * outage.
   */
  private readonly leaseRoomMs: number;

  constructor(
    private readonly db: Db,
    private readonly liveness: EngineLiveness,
    readonly leaseMs: number,
    /** The attempt timeout: the heartbeat and the lease must outlast an attempt started now. */
    private readonly attemptMs: number,
  ) {
    this.leaseRoomMs = Math.min(attemptMs + recordMarginMs, (leaseMs * 2) / 3);
  }

  get owner(): string {
    return this.liveness.owner;
  }

  /** Whether other engines' expired leases may be taken over now (EngineLiveness.settled()). */
  settled(): boolean {
    return this.liveness.settled();
  }

  /** Starts the heartbeat (before this engine leases anything). */
  async start(): Promise<void> {
    await this.liveness.start();
  }

  /** The engine is shutting down: an attempt waiting for a heartbeat gives up rather than holding the shutdown. */
  stopWaiting(): void {
    this.liveness.stopWaiting();
  }

  /** Stops the heartbeat and gives back what this engine still holds (leased ahead, never sent). */
  async close(): Promise<void> {
    await this.db
      .query('update deliveries set lease_owner = null, lease_until = null, lease_slot = null where lease_owner = $1', [
        this.owner,
      ])
      .catch(() => undefined);
    await this.liveness.close();
  }

  /**
   * Whether this engine may start the leased attempt now
   * (docs/decisions/a-dead-engine-s-leases-go-when-its-heartbeat.md): its heartbeat vouches for it for the whole
   * attempt (else it waits for the next beat), and its lease was taken since the database last answered without a break
   * and leaves room for the attempt and its recording (else it is renewed, which is also the check that no other engine
   * took it meanwhile). False: not ours any more.
   */
  async readyToSend(leased: LeasedDelivery): Promise<boolean> {
    for (let tries = 0; ; tries++) {
      if (this.liveness.aliveRoomMs() < this.attemptMs + beatSlackMs && !(await this.liveness.nextBeat(this.leaseMs)))
        return false;
      const fresh =
        leased.leasedAt >= this.liveness.trustedSince() &&
        leased.leasedAt + this.leaseMs - monotonicNow() >= this.leaseRoomMs;
      if (fresh) return true;
      try {
        return await this.renew(leased.tenantId, leased.id, leased.slot);
      } catch (err) {
        // The database went away between the beat and the renewal: wait for it once more, then leave the lease to
        // expire.
        if (!isUnavailable(err) || tries >= 2) throw err;
        await this.liveness.nextBeat(this.leaseMs);
      }
    }
  }

  markSent(tenantId: string, id: string): void {
    this.sent.add(`${tenantId}\u0000${id}`);
  }

  markDone(tenantId: string, id: string): void {
    this.sent.delete(`${tenantId}\u0000${id}`);
  }

  /**
   * How many more leases this engine may take on one endpoint (or bare test URL), as usedSlots counts
   * them (SPEC §5.2's ten across engines; more while it is the only holder). Call under its lock.
   */
  async room(q: Queryable, tenantId: string, endpointId: string | null, targetUrl: string | null): Promise<number> {
    const [sql, params] = named(
      usedSlots(endpointId),
      { owner: this.owner, sent: this.sentOf(tenantId), ...this.limits() },
      [tenantId, endpointId, endpointId === null ? targetUrl : null],
    );
    const [row] = await q.query<{ room: number }>(sql, params, { prepare: true });
    return row.room;
  }

  private limits() {
    return {
      max: maxInFlightPerEndpoint,
      sole: soleHolderLeases,
      leaseMs: this.leaseMs,
      settled: this.liveness.settled(),
    };
  }

  /**
   * Serialises claims of one endpoint's slots until the transaction ends; `wait: false` gives up instead of waiting.
   */
  async lockTarget(
    tx: Tx,
    tenantId: string,
    endpointId: string | null,
    targetUrl: string | null,
    wait = true,
  ): Promise<boolean> {
    const key = `sandbay:deliveries:${tenantId}:${endpointId ?? `url:${targetUrl}`}`;
    if (wait) {
      await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key], { prepare: true });
      return true;
    }
    const [row] = await tx.query<{ locked: boolean }>(
      'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked',
      [key],
      { prepare: true },
    );
    return row.locked;
  }

  /**
   * Claims deliveries of one target by id, each for its next slot if it meets its condition and is
   * not leased by anyone live, oldest due first, as far as the endpoint has room. Returns, per id
   * asked, the lease or why not (`full`: no slot was left for it).
   */
  async claimMany(
    target: Target,
    asks: { id: string; when: ClaimCondition }[],
  ): Promise<Map<string, LeasedDelivery | ClaimRefusal>> {
    const { tenantId, endpointId, targetUrl } = target;
    const leasedAt = monotonicNow();
    return this.db.transaction(async (tx) => {
      await this.lockTarget(tx, tenantId, endpointId, targetUrl);
      const requests = asks.map(({ id, when }) => ({
        id,
        statuses: when.statuses.join(','),
        attempts: when.attemptCount ?? null,
        due_by: when.dueBy === undefined ? null : new Date(when.dueBy).toISOString(),
        not_advancing: when.notAdvancing ?? false,
      }));
      const [sql, params] = named(
        claimByIdSql(endpointId),
        {
          owner: this.owner,
          sent: this.sentOf(tenantId),
          asks: JSON.stringify(requests),
          ids: asks.map((a) => a.id),
          ...this.limits(),
        },
        [tenantId, endpointId, endpointId === null ? targetUrl : null],
      );
      const leased = new Map(
        (await tx.query<Row>(sql, params, { prepare: true })).map((r) => [r.id, toLeased(leasedAt)(r)]),
      );
      const room = leased.size === asks.length ? 1 : await this.room(tx, tenantId, endpointId, targetUrl);
      const result = new Map<string, LeasedDelivery | ClaimRefusal>();
      // An id not leased while no slot was left may simply not have fitted: it is asked again.
      for (const { id } of asks) result.set(id, leased.get(id) ?? (room <= 0 ? 'full' : 'unavailable'));
      return result;
    });
  }

  /**
   * The targets with due work no one holds a lease on, every sandbox by its own clock: what the slow
   * poll and a NOTIFY look for. One index probe per enabled endpoint (and per sandbox for test
   * webhooks to bare URLs), rather than a scan of every pending delivery.
   */
  async dueTargets(skipTenants: string[]): Promise<Target[]> {
    const [sql, params] = named(dueTargetsSql, { owner: this.owner, settled: this.liveness.settled() }, [skipTenants]);
    const rows = await this.db.query<{ tenant_id: string; endpoint_id: string | null; target_url: string | null }>(
      sql,
      params,
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, endpointId: r.endpoint_id, targetUrl: r.target_url }));
  }

  /**
   * Claims a target's due deliveries, oldest first, as many as its endpoint has free slots (SPEC §5.2's
   * ten, across engines); `full` says whether any slot was left (due work may still wait).
   */
  async claimTarget(target: Target): Promise<{ claimed: LeasedDelivery[]; full: boolean }> {
    const { tenantId, endpointId, targetUrl } = target;
    const leasedAt = monotonicNow();
    return this.db.transaction(async (tx) => {
      await this.lockTarget(tx, tenantId, endpointId, targetUrl);
      // One statement after the lock (so its snapshot sees every claim committed before): count the
      // leases in use and the room they leave, as room() does, and lease as many due deliveries as fit.
      const [sql, params] = named(
        claimDueSql(endpointId),
        { owner: this.owner, sent: this.sentOf(tenantId), ...this.limits() },
        [tenantId, endpointId, endpointId === null ? targetUrl : null],
      );
      const rows = await tx.query<Row & { room: number }>(sql, params, { prepare: true });
      // Nothing claimed: either no due work, or no free slot; one more look tells which.
      if (rows.length === 0) return { claimed: [], full: (await this.room(tx, tenantId, endpointId, targetUrl)) <= 0 };
      return { claimed: rows.map(toLeased(leasedAt)), full: rows.length >= rows[0].room };
    });
  }

  private sentOf(tenantId: string): string[] {
    const prefix = `${tenantId}\u0000`;
    return [...this.sent].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  }

  /**
   * In the outbox's transaction: leases new deliveries of one target to this engine for their
   * first attempt, as many as the endpoint has room for, so they go out at COMMIT without a poll.
   * Returns the ids it leased (the first of `ids`, in order); another claim of the target under way means none.
   */
  async leaseNew(
    tx: Tx,
    tenantId: string,
    endpointId: string | null,
    targetUrl: string | null,
    ids: string[],
  ): Promise<Set<string>> {
    if (!(await this.lockTarget(tx, tenantId, endpointId, targetUrl, false))) return new Set();
    // One statement after the lock: the room left (as usedSlots counts it) and the leases within it.
    const [sql, params] = named(
      leaseNewSql(endpointId),
      { owner: this.owner, sent: this.sentOf(tenantId), ids, ...this.limits() },
      [tenantId, endpointId, endpointId === null ? targetUrl : null],
    );
    return new Set((await tx.query<{ id: string }>(sql, params, { prepare: true })).map((r) => r.id));
  }

  /**
   * Extends this engine's lease before a late attempt; false if it was lost meanwhile. A lease that
   * ran out but that no other engine took is still ours (this engine never attempts one delivery twice at once).
   */
  async renew(tenantId: string, id: string, slot: number): Promise<boolean> {
    const rows = await this.db.query(
      `update deliveries set lease_until = ${leaseUntil('$5')}
        where tenant_id = $1 and id = $2 and lease_owner = $3 and lease_slot = $4 and attempt_count = $4 - 1 returning id`,
      [tenantId, id, this.owner, slot, this.leaseMs],
      { prepare: true },
    );
    return rows.length === 1;
  }

  /** Gives a lease back unused (the attempt was skipped), so the delivery is claimable again at once. */
  async release(tenantId: string, id: string, slot: number): Promise<void> {
    await this.db.query(
      `update deliveries set lease_owner = null, lease_until = null, lease_slot = null
        where tenant_id = $1 and id = $2 and lease_owner = $3 and lease_slot = $4`,
      [tenantId, id, this.owner, slot],
    );
  }

  /** True while another engine holds a live lease on one of the sandbox's deliveries (an attempt in flight there). */
  async leasedElsewhere(tenantId: string): Promise<boolean> {
    const rows = await this.db.query(
      'select 1 from deliveries where tenant_id = $1 and lease_owner <> $2 and lease_until > now() limit 1',
      [tenantId, this.owner],
      { prepare: true },
    );
    return rows.length > 0;
  }

  /** True while anyone, on any engine, holds a live lease on the delivery (409 attempt_in_flight). */
  async isLeased(tenantId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      `select 1 from deliveries where tenant_id = $1 and id = $2 and lease_until > now()`,
      [tenantId, id],
    );
    return rows.length > 0;
  }

  /**
   * Releases the live leases of engines that are gone (no heartbeat row, or one that has lapsed: a crash,
   * a kill -9, an engine cut off from the database), so their work is taken again now rather than when
   * the leases expire — but only once this engine has seen the database answer a few heartbeats in a row
   * itself, or a database restart would make every engine look dead to the first one back.
   */
  async releaseDeadOwners(): Promise<number> {
    if (!this.liveness.settled()) return 0;
    const rows = await this.db.query(
      `update deliveries d set lease_owner = null, lease_until = null, lease_slot = null
        where d.lease_owner is not null and d.lease_owner <> $1 and d.lease_until > now()
          and not exists (select 1 from engine_heartbeats h where h.engine_id = d.lease_owner and h.alive_until > now() and not $2::boolean)
        returning d.id`,
      [this.owner, this.liveness.exclusive],
    );
    return rows.length;
  }
}

/**
 * Leases must leave this much beyond an attempt's timeout when it starts: its recording, through an outage this long.
 */
const recordMarginMs = 10_000;
