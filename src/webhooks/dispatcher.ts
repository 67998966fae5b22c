import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { DueJob, JobHandler, Scheduler } from '../schedule/scheduler.ts';
import { nextRetryDelaySeconds } from '../shared/retry-schedule.ts';
import { signatureHeaderName } from '../shared/signature.ts';
import type { Topic } from '../shared/topics.ts';
import type { AttemptRecord, AttemptRecorder } from './attempt-recorder.ts';
import { attemptChaos, type Chaos, type ChaosSettings } from './chaos.ts';
import type { DeliveryStream } from './delivery-stream.ts';
import { Endpoints } from './endpoints.ts';
import { KeyedLimiter } from './limiter.ts';
import type { QueuedDelivery } from './outbox.ts';
import type { Sender } from './sender.ts';
import { signatureHeader } from '../receiver/sign.ts';

export const attemptJob = 'webhook.attempt';

/** A pending delivery as the dispatcher carries it between attempts. */
export interface DeliveryState extends Omit<QueuedDelivery, 'dueAt'> {
  attemptCount: number;
  cycleAttempts: number;
  /** The sandbox's epoch when this was queued; a reset since then makes the job stale. */
  epoch?: number;
}

export type Trigger = AttemptRecord['attempt']['trigger'];

export interface AttemptResult {
  status: 'pending' | 'succeeded' | 'dead';
  skipped?: 'endpoint_disabled' | 'endpoint_deleted' | 'stale';
}

export interface DispatcherDeps {
  db: Db;
  clock: SandboxClock;
  scheduler: Scheduler;
  endpoints: Endpoints;
  sender: Sender;
  recorder: AttemptRecorder;
  stream: DeliveryStream;
  /** Faults an endpoint asks for (duplicates, holds): drawn once per delivery, stored with it. */
  chaos: Chaos;
  /** The sandbox's webhookTestSecret, for test webhooks sent to a bare URL. */
  testSecret: (tenantId: string) => Promise<string>;
  realNow: () => number;
}

const maxInFlightPerEndpoint = 10;

interface StateRow {
  tenant_id?: string; id: string; endpoint_id: string | null; target_url: string | null; topic: Topic; body: string;
  attempt_count: number; cycle_attempts: number; status: string; next_attempt_at: Date | null;
}

const stateSelect = `select tenant_id, id, endpoint_id, target_url, topic, body, attempt_count, cycle_attempts, status, next_attempt_at
  from deliveries`;

const toState = (tenantId: string, r: StateRow): DeliveryState => ({
  tenantId, id: r.id, endpointId: r.endpoint_id, targetUrl: r.target_url, topic: r.topic, body: r.body,
  attemptCount: r.attempt_count, cycleAttempts: r.cycle_attempts,
});

/**
 * Runs delivery attempts: sign afresh, POST, record (batched), then schedule the next slot
 * of the retry cycle on the sandbox clock or dead-letter the delivery (SPEC §5.2–5.3).
 */
export class Dispatcher implements JobHandler {
  private readonly limiter = new KeyedLimiter(maxInFlightPerEndpoint);
  private readonly inFlight = new Set<string>();
  /** Bumped by a reset or delete, so attempts that were in flight then change nothing. */
  private readonly epochs = new Map<string, number>();

  constructor(private readonly deps: DispatcherDeps) {}

  /** Every pending delivery goes back on the queue at start: nothing is lost by a crash. */
  async load(): Promise<DueJob[]> {
    const rows = await this.deps.db.query<StateRow & { tenant_id: string }>(`${stateSelect} where status = 'pending'`);
    return rows.map((r) => this.job(toState(r.tenant_id, r), r.next_attempt_at?.getTime() ?? this.deps.clock.nowMs(r.tenant_id)));
  }

  /** Hears of committed deliveries (the outbox's afterCommit) and queues their first attempt. */
  enqueue(deliveries: QueuedDelivery[]): void {
    for (const d of deliveries) {
      this.deps.scheduler.schedule(this.job({ ...d, attemptCount: 0, cycleAttempts: 0 }, d.dueAt));
      this.deps.stream.publish(d.tenantId, 'delivery.created', { id: d.id, topic: d.topic, endpointId: d.endpointId, status: 'pending' });
    }
  }

  async run(job: DueJob, asOf: number): Promise<void> {
    const queued = job.data as DeliveryState | undefined;
    if (queued && queued.epoch !== this.epochOf(job.tenantId)) return;
    const state = queued ?? (await this.loadState(job.tenantId, job.id));
    if (!state) return;
    await this.attempt(state, state.cycleAttempts === 0 ? 'initial' : 'retry', asOf);
  }

  isInFlight(tenantId: string, deliveryId: string): boolean {
    return this.inFlight.has(`${tenantId}\u0000${deliveryId}`);
  }

  /**
   * One attempt. `retry`/`initial`/`manual` use the next slot of the five; `replay` is an
   * extra attempt outside the cycle whose failure leaves the delivery dead; `duplicate` is
   * chaos sending a delivered one again, which changes nothing of its state. Every attempt
   * counts as the sandbox's running work, so a clock advance waits for manual retries and
   * replays too, until they are recorded and their follow-up is scheduled (SPEC §5.5).
   */
  attempt(state: DeliveryState, trigger: Trigger, asOf: number): Promise<AttemptResult> {
    return this.deps.scheduler.track(state.tenantId, this.attemptOnce(state, trigger, asOf));
  }

  private async attemptOnce(state: DeliveryState, trigger: Trigger, asOf: number): Promise<AttemptResult> {
    const { tenantId, id } = state;
    const epoch = this.epochOf(tenantId);
    const target = await this.resolveTarget(state, asOf);
    if ('skipped' in target) {
      if (target.skipped === 'endpoint_deleted') await this.deadLetter(state, 'endpoint_deleted');
      return { status: target.skipped === 'endpoint_deleted' ? 'dead' : 'pending', skipped: target.skipped };
    }
    // Chaos hook (./chaos.ts): a first attempt may be held back once, and a delivered one sent again below.
    const chaos = trigger === 'initial' && target.chaos ? await this.deps.chaos.plan(tenantId, id, target.chaos, asOf) : null;
    if (chaos?.holdUntil) {
      this.deps.scheduler.schedule(this.job(state, chaos.holdUntil));
      this.deps.stream.publish(tenantId, 'delivery.updated', { id, status: 'pending', nextAttemptAt: new Date(chaos.holdUntil).toISOString(), chaos: attemptChaos(chaos.draw, false) });
      return { status: 'pending' };
    }
    const key = `${tenantId}\u0000${id}`;
    this.inFlight.add(key);
    try {
      const release = await this.limiter.acquire(state.endpointId ?? target.url);
      let header: string;
      let outcome;
      try {
        header = signatureHeader(target.secrets, state.body, Math.floor(this.deps.realNow() / 1000));
        outcome = await this.deps.sender.send({
          url: target.url, body: state.body, allowInsecureTls: target.allowInsecureTls,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Sandbay-Webhooks/1.0',
            'x-service-topic': state.topic,
            'x-service-delivery-id': id,
            [signatureHeaderName.toLowerCase()]: header,
          },
        });
      } finally {
        release();
      }
      const cycle = trigger !== 'replay' && trigger !== 'duplicate';
      const cycleAttempts = state.cycleAttempts + (cycle ? 1 : 0);
      const delay = cycle ? nextRetryDelaySeconds(cycleAttempts) : null;
      const status = outcome.ok || trigger === 'duplicate' ? 'succeeded' : delay === null ? 'dead' : 'pending';
      const finishedAt = asOf + outcome.durationMs;
      const next: DeliveryState = { ...state, attemptCount: state.attemptCount + 1, cycleAttempts };
      const nextAttemptAt = status === 'pending' ? finishedAt + delay! * 1000 : null;
      const record: AttemptRecord = {
        tenantId, deliveryId: id,
        attempt: {
          number: next.attemptCount, trigger, url: target.url, startedAt: new Date(asOf), durationMs: outcome.durationMs,
          signatureHeader: header, responseStatus: outcome.status, responseHeaders: outcome.headers, responseBody: outcome.body, error: outcome.error,
          chaos: attemptChaos(chaos?.draw ?? null, trigger === 'duplicate'),
        },
        delivery: {
          status, attemptCount: next.attemptCount, cycleAttempts, nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt),
          updatedAt: new Date(finishedAt),
        },
      };
      if (this.epochOf(tenantId) !== epoch) return { status, skipped: 'stale' };
      await this.deps.recorder.record(record);
      if (this.epochOf(tenantId) !== epoch) return { status, skipped: 'stale' };
      if (nextAttemptAt !== null) this.deps.scheduler.schedule(this.job(next, nextAttemptAt));
      this.deps.stream.publish(tenantId, 'attempt.finished', {
        id, number: next.attemptCount, trigger, responseStatus: outcome.status, error: outcome.error, durationMs: outcome.durationMs,
      });
      this.deps.stream.publish(tenantId, 'delivery.updated', {
        id, status, attemptCount: next.attemptCount, nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
      });
      if (outcome.ok && chaos?.draw.duplicate) {
        this.inFlight.delete(key);
        await this.attempt(next, 'duplicate', finishedAt);
      }
      return { status };
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Loads a delivery's state from the database (the source of truth). */
  async loadState(tenantId: string, id: string): Promise<(DeliveryState & { status: string }) | undefined> {
    const [row] = await this.deps.db.query<StateRow>(`${stateSelect} where tenant_id = $1 and id = $2`, [tenantId, id]);
    return row && { ...toState(tenantId, row), status: row.status };
  }

  /** Queues again an endpoint's pending deliveries (after it is enabled), read in one query. */
  async resumeEndpoint(tenantId: string, endpointId: string): Promise<void> {
    const rows = await this.deps.db.query<StateRow>(
      `${stateSelect} where tenant_id = $1 and endpoint_id = $2 and status = 'pending'`, [tenantId, endpointId],
    );
    const now = this.deps.clock.nowMs(tenantId);
    for (const row of rows) this.deps.scheduler.schedule(this.job(toState(tenantId, row), Math.min(now, row.next_attempt_at?.getTime() ?? now)));
  }

  /** Dead-letters an endpoint's pending deliveries when it is deleted (SPEC §5.1). */
  async endpointDeleted(tenantId: string, endpointId: string): Promise<void> {
    const rows = await this.deps.db.query<{ id: string }>(
      `update deliveries set status = 'dead', next_attempt_at = null, last_error = 'endpoint_deleted', updated_at = $3
        where tenant_id = $1 and endpoint_id = $2 and status = 'pending' returning id`,
      [tenantId, endpointId, this.deps.clock.now(tenantId)],
    );
    for (const { id } of rows) {
      this.deps.scheduler.cancel(attemptJob, tenantId, id);
      this.deps.stream.publish(tenantId, 'delivery.updated', { id, status: 'dead', error: 'endpoint_deleted' });
    }
  }

  /**
   * Forgets a sandbox's queued work (reset, delete): called before the reset's transaction
   * and again right after its commit, so neither attempts in flight nor jobs queued in
   * between touch the fresh sandbox. The scheduler drops the sandbox's jobs of every kind,
   * commerce jobs (expiries, payout retries, reports) included: a reset reseeds, and the
   * seed owes no jobs (docs/decisions.md); a deleted sandbox owes nothing at all.
   */
  forgetTenant(tenantId: string): void {
    this.epochs.set(tenantId, this.epochOf(tenantId) + 1);
    this.deps.scheduler.cancelTenant(tenantId);
  }

  private epochOf(tenantId: string): number {
    return this.epochs.get(tenantId) ?? 0;
  }

  private job(state: DeliveryState, dueAt: number): DueJob<DeliveryState> {
    return { kind: attemptJob, tenantId: state.tenantId, id: state.id, dueAt, data: { ...state, epoch: this.epochOf(state.tenantId) } };
  }

  private async resolveTarget(state: DeliveryState, asOf: number): Promise<
    | { url: string; secrets: string[]; allowInsecureTls: boolean; chaos?: { id: string; chaos: ChaosSettings; sinceSeq: number } }
    | { skipped: 'endpoint_disabled' | 'endpoint_deleted' }
  > {
    if (!state.endpointId) {
      return { url: state.targetUrl!, secrets: [await this.deps.testSecret(state.tenantId)], allowInsecureTls: false };
    }
    const endpoint = await this.deps.endpoints.target(state.tenantId, state.endpointId);
    if (!endpoint) return { skipped: 'endpoint_deleted' };
    // A disabled endpoint's deliveries stay pending in the database and are queued again on enable.
    if (!endpoint.enabled) return { skipped: 'endpoint_disabled' };
    const chaos = endpoint.chaos ? { id: state.endpointId, chaos: endpoint.chaos, sinceSeq: endpoint.chaosSinceSeq } : undefined;
    return { url: endpoint.url, secrets: Endpoints.signingSecrets(endpoint, asOf), allowInsecureTls: endpoint.allowInsecureTls, chaos };
  }

  private async deadLetter(state: DeliveryState, error: string): Promise<void> {
    await this.deps.db.query(
      `update deliveries set status = 'dead', next_attempt_at = null, last_error = $3, updated_at = $4 where tenant_id = $1 and id = $2 and status = 'pending'`,
      [state.tenantId, state.id, error, this.deps.clock.now(state.tenantId)],
    );
    this.deps.stream.publish(state.tenantId, 'delivery.updated', { id: state.id, status: 'dead', error });
  }
}
