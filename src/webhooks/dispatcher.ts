import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { DueJob, JobHandler, Scheduler } from '../schedule/scheduler.ts';
import { resolveTarget, sendSigned, type SignedAttempt } from './attempt-signing.ts';
import type { AttemptRecorder } from './attempt-recorder.ts';
import { attemptChaos, type Chaos } from './chaos.ts';
import type { DeliveryStream } from './delivery-stream.ts';
import type { Endpoints } from './endpoints.ts';
import { deadLetterPending, dueStates, loadState, type DeliveryState } from './delivery-state.ts';
import {
  maxInFlightPerEndpoint,
  targetKey,
  targetOf,
  type ClaimCondition,
  type DeliveryLeases,
  type LeasedDelivery,
} from './leases.ts';
import { ClaimBatcher } from './claim-batcher.ts';
import { ClaimLoop, dueChannel } from './claim-loop.ts';
import { KeyedLimiter } from './limiter.ts';
import type { QueuedDelivery } from './outbox.ts';
import type { Sender } from './sender.ts';
import type { AttemptTracer } from './tracing/attempt-tracer.ts';
import type { TenantShares } from './outbound/shares.ts';
import { SandboxFlights, type Flight } from './flights.ts';
import { faultReason, isRowFault, Quarantine } from './quarantine.ts';

import { attemptJob, attemptJobOf, recordOutcome, type AttemptResult, type Trigger } from './attempt-outcome.ts';

export { attemptJob };

export interface DispatcherDeps {
  db: Db;
  clock: SandboxClock;
  scheduler: Scheduler;
  endpoints: Endpoints;
  sender: Sender;
  recorder: AttemptRecorder;
  stream: DeliveryStream;
  leases: DeliveryLeases;
  /** Faults an endpoint asks for (duplicates, holds): drawn once per delivery, stored with it. */
  chaos: Chaos;
  /** The sandbox's webhookTestSecret, for test webhooks sent to a bare URL. */
  testSecret: (tenantId: string) => Promise<string>;
  realNow: () => number;
  /** The safety-net poll: due work nobody was told of, and leases of crashed engines. */
  pollMs: number;
  onError: (message: string) => void;
  /** Each sandbox's share of outbound requests in flight (shared mode). */
  shares: TenantShares;
  /** Trace context: every attempt's `traceparent`, and its span when export is on. */
  tracer: AttemptTracer;
}

/** How often an advance looks again whether other engines' attempts of its sandbox have finished. */
const settlePollMs = 20;
/** How long closing waits for attempt outcomes to be written while the database is away. */
const closeRecordWaitMs = 10_000;

/**
 * Runs delivery attempts: claim a lease on the delivery (the deliveries table is the queue every
 * engine shares), sign afresh, POST outside any transaction, record (batched) only if the lease is
 * still ours, then schedule the next slot of the retry cycle on the sandbox clock or dead-letter
 * the delivery (SPEC §5.2–5.3). Wake-ups: first attempts leased at insert go out at once; a local
 * timer per retry this engine scheduled; NOTIFY sandbay_due and the slow poll (./claim-loop.ts).
 */
export class Dispatcher implements JobHandler {
  /** Local turns per endpoint, so that claims wait here rather than hammering the database. */
  private readonly limiter = new KeyedLimiter(maxInFlightPerEndpoint);
  /** Deliveries this engine is attempting now (from the lease until the outcome is recorded). */
  private readonly attempting = new Set<string>();
  /** Sandboxes with attempts in flight here, and their epochs (./flights.ts). */
  private readonly flights = new SandboxFlights();
  /** Claims asked for in this turn of the event loop, per target: sent together. */
  private readonly claims: ClaimBatcher;
  /** Real-time claims of due work (NOTIFY, the poll, a target with more due work than room). */
  private readonly loop: ClaimLoop;
  /** Where deliveries the engine cannot process go, with their reason. */
  private readonly quarantine: Quarantine;
  private closed = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.claims = new ClaimBatcher(deps.leases);
    this.quarantine = new Quarantine({
      db: deps.db,
      onError: deps.onError,
      dropped: (tenantId, id, error) => this.dropped(tenantId, id, error),
    });
    this.loop = new ClaimLoop({
      db: deps.db,
      leases: deps.leases,
      quarantine: this.quarantine,
      pollMs: deps.pollMs,
      onError: deps.onError,
      advancingTenants: () => deps.scheduler.advancingTenants(),
      attempt: (leased) =>
        this.inBackground(
          this.attempt(leased, leased.cycleAttempts === 0 ? 'initial' : 'retry', leased.sandboxNowMs, leased),
        ),
    });
  }

  /** Nothing to load: the deliveries table is the queue, and the first claim runs as the engine starts. */
  async load(): Promise<DueJob[]> {
    return [];
  }

  /** Starts claiming: the heartbeat, then the real-time claim loop. */
  async start(): Promise<void> {
    await this.deps.leases.start();
    await this.loop.start();
  }

  /** Stops claiming; `stopBeating()` (once attempts in flight are recorded) gives back the rest. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Closing waits for attempts in flight to be recorded, but not for ever for a database that is away.
    this.deps.recorder.giveUpAfter(closeRecordWaitMs);
    this.deps.leases.stopWaiting();
    await this.loop.close();
  }

  /** Stops the heartbeat and gives back the leases not used: call after the attempts in flight were recorded. */
  async stopBeating(): Promise<void> {
    await this.deps.leases.close();
  }

  /**
   * The sandbox's pending deliveries due by `upTo` that no one holds a lease on, within `windowMs`
   * of the earliest: the next batch an advance runs (the rest come at its next call).
   */
  async due(tenantId: string, upTo: number, windowMs: number): Promise<DueJob[]> {
    const due = await dueStates(this.deps.db, tenantId, upTo, windowMs, {
      owner: this.deps.leases.owner,
      settled: this.deps.leases.settled(),
    });
    return due.map(({ state, dueAt }) => attemptJobOf(state, dueAt));
  }

  /** Hears of committed deliveries (the outbox's afterCommit): those leased to this engine go out now. */
  enqueue(deliveries: QueuedDelivery[]): void {
    for (const d of deliveries) {
      this.deps.stream.publish(d.tenantId, 'delivery.created', {
        id: d.id,
        topic: d.topic,
        endpointId: d.endpointId,
        status: 'pending',
      });
      if (d.leasedAt !== null && !d.attemptedByCaller) this.inBackground(this.attemptNew(d));
    }
  }

  /**
   * A committed delivery's first attempt, now: on the lease the outbox took at insert, else claimed (its target
   * was full; the claim waits for room, and finds it taken if the claim loop got there first).
   */
  attemptNew(d: QueuedDelivery): Promise<AttemptResult> {
    const sandboxNowMs = this.deps.clock.nowMs(d.tenantId);
    const state = { ...d, attemptCount: 0, cycleAttempts: 0 };
    if (d.leasedAt === null)
      return this.attempt(state, 'initial', sandboxNowMs, { statuses: ['pending'], attemptCount: 0 });
    const leased: LeasedDelivery = { ...state, leasedAt: d.leasedAt, slot: 1, sandboxNowMs };
    return this.attempt(leased, 'initial', sandboxNowMs, leased);
  }

  /** A scheduled attempt (the local timer, or an advance's step): claims its slot, or finds it taken. */
  async run(job: DueJob, asOf: number): Promise<void> {
    const queued = job.data as DeliveryState | undefined;
    const state = queued ?? (await this.loadState(job.tenantId, job.id));
    if (!state) return;
    await this.attempt(state, state.cycleAttempts === 0 ? 'initial' : 'retry', asOf, {
      statuses: ['pending'],
      attemptCount: state.attemptCount,
      dueBy: asOf,
      notAdvancing: !this.deps.scheduler.advancingTenants().includes(job.tenantId),
    });
  }

  /**
   * An attempt nobody awaits (a claim's, a first attempt at COMMIT): a failure is logged, never an
   * unhandled rejection. Its lease stays until it expires or is renewed, then the delivery is claimed again.
   */
  private inBackground(attempt: Promise<AttemptResult>): void {
    attempt.catch((err) => {
      if (!this.closed)
        this.deps.onError(`attempt failed before its outcome was recorded: ${(err as Error)?.message ?? err}`);
    });
  }

  /** Waits until no other engine has an attempt of the sandbox in flight (an advance runs after them). */
  async settle(tenantId: string): Promise<void> {
    while (!this.closed && (await this.deps.leases.leasedElsewhere(tenantId)))
      await new Promise((r) => setTimeout(r, settlePollMs));
  }

  /** True while an attempt of the delivery is in flight on any engine (a live lease). */
  isInFlight(tenantId: string, deliveryId: string): Promise<boolean> {
    return this.deps.leases.isLeased(tenantId, deliveryId);
  }

  /**
   * One attempt: claims the delivery's lease if `claim` is a condition (a lease the outbox took is
   * passed as is). `retry`/`initial`/`manual` use the next slot of the five; `replay` is an
   * extra attempt outside the cycle whose failure leaves the delivery dead; `duplicate` is
   * chaos sending a delivered one again, which changes nothing of its state. Every attempt
   * counts as the sandbox's running work, so a clock advance waits for manual retries and
   * replays too, until they are recorded and their follow-up is scheduled (SPEC §5.5).
   * It runs outside any request's transaction: it awaits the network.
   */
  attempt(
    state: DeliveryState,
    trigger: Trigger,
    asOf: number,
    claim: ClaimCondition | LeasedDelivery,
  ): Promise<AttemptResult> {
    return this.deps.scheduler.track(
      state.tenantId,
      detached(this.deps.db, () => this.attemptOnce(state, trigger, asOf, claim)),
    );
  }

  private async attemptOnce(
    state: DeliveryState,
    trigger: Trigger,
    asOf: number,
    claim: ClaimCondition | LeasedDelivery,
  ): Promise<AttemptResult> {
    const flight = this.flights.board(state.tenantId);
    try {
      return await this.attemptIn(flight, state, trigger, asOf, claim);
    } catch (err) {
      // A row that fails the same way at every try (an Invalid Date from its sandbox's clock, an unknown
      // scheme) would hold its lease and be claimed again for ever: it is quarantined with the reason.
      if (this.closed || !isRowFault(err)) throw err;
      await this.quarantine.delivery(state.tenantId, state.id, faultReason('cannot process the stored delivery', err));
      return { status: 'dead', skipped: 'quarantined' };
    } finally {
      this.flights.alight(state.tenantId, flight);
    }
  }

  private async attemptIn(
    flight: Flight,
    state: DeliveryState,
    trigger: Trigger,
    asOf: number,
    claim: ClaimCondition | LeasedDelivery,
  ): Promise<AttemptResult> {
    const { tenantId, id } = state;
    const epoch = flight.epoch;
    const given = 'slot' in claim ? claim : undefined;
    const target = await resolveTarget(this.deps, state, asOf);
    if ('skipped' in target) {
      if (given) await this.deps.leases.release(tenantId, id, given.slot);
      if (target.skipped === 'endpoint_deleted') await this.deadLetter(tenantId, { id }, 'endpoint_deleted');
      return { status: target.skipped === 'endpoint_deleted' ? 'dead' : 'pending', skipped: target.skipped };
    }
    // Chaos hook (./chaos.ts): a first attempt may be held back once (its lease given up until then),
    // and a delivered one sent again below.
    const chaos =
      trigger === 'initial' && target.chaos ? await this.deps.chaos.plan(tenantId, id, target.chaos, asOf) : null;
    if (chaos?.holdUntil) {
      if (given) await this.deps.leases.release(tenantId, id, given.slot);
      if (flight.epoch !== epoch) return { status: 'pending', skipped: 'stale' };
      this.deps.scheduler.schedule(attemptJobOf(state, chaos.holdUntil));
      this.deps.stream.publish(tenantId, 'delivery.updated', {
        id,
        status: 'pending',
        nextAttemptAt: new Date(chaos.holdUntil).toISOString(),
        chaos: attemptChaos(chaos.draw, false),
      });
      return { status: 'pending' };
    }
    // Claimed before waiting for a local turn, so an advance's batch is one claim per endpoint.
    const leased =
      given ?? (await this.claims.claim(targetOf(state), state.id, claim as ClaimCondition, () => this.closed));
    const key = `${tenantId}\u0000${id}`;
    // Our own lease, run out and claimed again here while its first attempt still runs: one attempt at a time.
    if (!leased || this.attempting.has(key)) return { status: 'pending', skipped: 'in_flight' };
    this.attempting.add(key);
    const lane = targetOf(state);
    this.loop.queued(lane);
    const releaseTarget = await this.limiter.acquire(targetKey(lane));
    // The sandbox's turn too (shared mode), before the lease is looked at: a long wait renews it below.
    const releaseShare = await this.deps.shares.request(tenantId);
    const release = () => {
      releaseShare();
      releaseTarget();
    };
    let signed: SignedAttempt;
    let outcome;
    try {
      // Never start an attempt that could outlive what this engine can vouch for (its heartbeat, its
      // lease through the attempt and its recording), nor on a lease it held across an outage unchecked.
      if (!(await this.deps.leases.readyToSend(leased))) return { status: 'pending', skipped: 'lost_lease' };
      ({ signed, outcome } = await sendSigned(this.deps, target, leased, trigger));
      this.deps.leases.markSent(tenantId, id);
    } finally {
      release();
      if (!outcome) this.attempting.delete(key);
      this.loop.sent(lane);
    }
    let result: AttemptResult;
    try {
      result = await recordOutcome(this.deps, {
        leased,
        trigger,
        asOf,
        flight,
        epoch,
        sent: { url: target.url, schemes: target.signing.schemes, signed },
        outcome,
        chaos: chaos?.draw ?? null,
      });
    } finally {
      this.attempting.delete(key);
      this.deps.leases.markDone(tenantId, id);
      this.loop.finished(lane);
    }
    if (outcome.ok && !result.skipped && chaos?.draw.duplicate) {
      const delivered = { ...leased, attemptCount: leased.slot, cycleAttempts: leased.cycleAttempts + 1 };
      await this.attemptIn(flight, delivered, 'duplicate', asOf + outcome.durationMs, {
        statuses: ['succeeded'],
        attemptCount: leased.slot,
      });
    }
    return result;
  }

  /** Loads a delivery's state from the database (the source of truth). */
  loadState(tenantId: string, id: string): Promise<(DeliveryState & { status: string }) | undefined> {
    return loadState(this.deps.db, tenantId, id);
  }

  /** An endpoint was enabled: its waiting deliveries are claimable again, by whichever engine is first. */
  async resumeEndpoint(tenantId: string, endpointId: string): Promise<void> {
    await this.deps.db.notify(dueChannel, JSON.stringify({ tenantId, endpointId }));
  }

  /** Dead-letters an endpoint's pending deliveries when it is deleted (SPEC §5.1). */
  async endpointDeleted(tenantId: string, endpointId: string): Promise<void> {
    await this.deadLetter(tenantId, { endpointId }, 'endpoint_deleted');
  }

  /**
   * Forgets a sandbox's queued work (reset, delete): called before the reset's transaction
   * and again right after its commit, so neither attempts in flight nor jobs queued in
   * between touch the fresh sandbox. The scheduler drops the sandbox's jobs of every kind,
   * commerce jobs (expiries, payout retries, reports) included: a reset reseeds, and the
   * seed owes no jobs (docs/decisions/the-seed-owes-no-jobs.md); a deleted sandbox owes nothing at all.
   */
  forgetTenant(tenantId: string): void {
    this.flights.bump(tenantId);
    this.deps.scheduler.cancelTenant(tenantId);
  }

  /** How many sandboxes have attempts in flight on this engine (each holds one entry while it has). */
  get sandboxesInFlight(): number {
    return this.flights.size;
  }

  /**
   * Dead-letters pending deliveries — one, or all of an endpoint's — with the reason as their last error:
   * their queued attempts are cancelled and the live stream hears of each.
   */
  private async deadLetter(
    tenantId: string,
    which: { id: string } | { endpointId: string },
    error: string,
  ): Promise<void> {
    const rows = await deadLetterPending(this.deps.db, tenantId, which, error, this.deps.clock.now(tenantId));
    for (const { id } of rows) this.dropped(tenantId, id, error);
  }

  /** A delivery dead-lettered outside an attempt: its queued attempt is cancelled and the live stream hears of it. */
  private dropped(tenantId: string, id: string, error: string): void {
    this.deps.scheduler.cancel(attemptJob, tenantId, id);
    this.deps.stream.publish(tenantId, 'delivery.updated', { id, status: 'dead', error });
  }
}
