import type { Db } from '../db/database.ts';
import type { Invalidations } from '../db/invalidations.ts';
import type { TenantLifecycle } from '../shared/tenant-lifecycle.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { Scheduler } from '../schedule/scheduler.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import { Chaos } from './chaos.ts';
import { Checks } from './check/checks.ts';
import { CheckRunner } from './check/runner.ts';
import { CheckStore } from './check/store.ts';
import { DeliveryStream } from './delivery-stream.ts';
import { attemptJob, Dispatcher } from './dispatcher.ts';
import { DlqReplays } from './dlq-replay.ts';
import { Endpoints } from './endpoints.ts';
import { DeliveryLeases } from './leases.ts';
import { EngineLiveness, heartbeatAliveMs, type DatabaseState } from './liveness.ts';
import { Outbox, type Committed } from './outbox.ts';
import { Sender } from './sender.ts';
import { OutboundPolicy } from './outbound/policy.ts';
import { TenantShares } from './outbound/shares.ts';
import { WebhookService } from './service.ts';
import { Pruner } from './pruner.ts';
import { Resigner } from './signed-request.ts';
import { TestSecrets } from './test-secrets.ts';
import { headerOnlyTracer, type AttemptTracer } from './tracing/attempt-tracer.ts';

export interface WebhookEngineOptions {
  db: Db;
  clock: SandboxClock;
  scheduler: Scheduler;
  /** Per-attempt timeout; SPEC §5.3 says 10 s. Tests shorten it. */
  attemptTimeoutMs: number;
  /** Each sandbox keeps its newest N deliveries; older finished ones are pruned. */
  maxDeliveriesPerSandbox: number;
  realNow?: () => number;
  onError: (message: string) => void;
  /** Cache invalidation shared with the other engines on the database. */
  invalidations: Invalidations;
  /** This engine's id: the owner named on the leases it takes. */
  owner: string;
  /** How long a claim holds a delivery (real time); another engine takes it after. Default 30 s. */
  leaseMs?: number;
  /** The safety-net poll for due work and crashed engines' leases. Default 2 s. */
  pollMs?: number;
  /** What outbound requests may reach (SPEC §9); default: a laptop's, which refuses nothing. */
  policy?: OutboundPolicy;
  /**
   * How long one heartbeat vouches for this engine (default 20 s; at least the attempt timeout + 4 s):
   * a crashed engine's leases are taken over this long after its last beat, plus a poll.
   */
  aliveMs?: number;
  /** A live-stream client that leaves its buffer full this long is dropped. Default 30 s. */
  streamStallMs?: number;
  /** Trace context of attempts; default: the `traceparent` header only, no export. */
  tracer?: AttemptTracer;
}

export interface WebhookEngine {
  outbox: Outbox;
  dispatcher: Dispatcher;
  endpoints: Endpoints;
  service: WebhookService;
  replays: DlqReplays;
  stream: DeliveryStream;
  recorder: AttemptRecorder;
  /** Receiver checks (SPEC §10): their runs and the battery's runner. */
  checks: Checks;
  checkRuns: CheckStore;
  /** Sends every outbound request (deliveries, checks, effects URLs) through the policy. */
  sender: Sender;
  /** The outbound policy and each sandbox's share of outbound capacity (shared mode). */
  outbound: { policy: OutboundPolicy; shares: TenantShares };
  /** Signs a delivery again now, for Copy as curl. */
  resigner: Resigner;
  lifecycle: TenantLifecycle;
  /** The database as this engine's heartbeat last found it. */
  databaseState(): DatabaseState;
  /** Starts claiming from the deliveries table (after the scheduler has started). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * SPEC §9: a crashed engine's work is taken again within 30 s (once its heartbeat has lapsed, after at most aliveMs + a
 * poll).
 */
const defaultLeaseMs = 30_000;
const defaultPollMs = 2_000;
const defaultAliveMs = 20_000;

/** Wires the delivery engine: outbox → scheduler → dispatcher → sender → recorder → stream. */
export function createWebhookEngine(options: WebhookEngineOptions): WebhookEngine {
  const { db, clock, scheduler } = options;
  const stream = new DeliveryStream(db, options.onError, options.streamStallMs);
  const policy = options.policy ?? new OutboundPolicy({ shared: false });
  const shares = new TenantShares(policy.shared);
  const sender = new Sender(options.attemptTimeoutMs, policy);
  const recorder = new AttemptRecorder(db, options.onError);
  const endpoints = new Endpoints(db, clock, options.invalidations);
  const liveness = new EngineLiveness(db, options.owner, {
    // A heartbeat must outlast an attempt started on it (leases.ts readyToSend), at any point of its interval.
    aliveMs: heartbeatAliveMs(options.aliveMs ?? defaultAliveMs, options.attemptTimeoutMs),
    exclusive: db.driver === 'pglite',
    onError: options.onError,
  });
  const leases = new DeliveryLeases(db, liveness, options.leaseMs ?? defaultLeaseMs, options.attemptTimeoutMs);
  const testSecrets = new TestSecrets(db, options.invalidations);
  const tracer = options.tracer ?? headerOnlyTracer;
  const testSecret = (tenantId: string) => testSecrets.of(tenantId);
  const dispatcher = new Dispatcher({
    db,
    clock,
    scheduler,
    endpoints,
    sender,
    recorder,
    stream,
    leases,
    chaos: new Chaos(db),
    realNow: options.realNow ?? Date.now,
    pollMs: options.pollMs ?? defaultPollMs,
    onError: options.onError,
    testSecret,
    shares,
    tracer,
  });
  const checkRuns = new CheckStore(db, clock);
  const checkRunner = new CheckRunner({
    db,
    clock,
    sender,
    shares,
    store: checkRuns,
    stream,
    onError: options.onError,
  });
  const checks = new Checks(db, clock, endpoints, checkRunner, testSecret);
  scheduler.register(attemptJob, dispatcher);

  const pruner = new Pruner(db, options.maxDeliveriesPerSandbox, options.onError);
  const outbox = new Outbox(({ deliveries, unpruned }: Committed) => {
    dispatcher.enqueue(deliveries);
    pruner.created(deliveries[0].tenantId, deliveries.length, unpruned);
  }, leases);
  const service = new WebhookService(db, clock, scheduler, endpoints, dispatcher, outbox);
  const replays = new DlqReplays(
    db,
    clock,
    dispatcher,
    (tenantId, id, to) => service.resendTo(tenantId, id, to),
    options.onError,
  );

  const lifecycle: TenantLifecycle = {
    before: (tenantId) => {
      dispatcher.forgetTenant(tenantId);
      replays.forgetTenant(tenantId);
    },
    after: (tenantId, change) => {
      dispatcher.forgetTenant(tenantId);
      if (change.all) endpoints.forget(tenantId);
      testSecrets.forget(tenantId);
      // Once, by the engine that reset it: the stream reaches every engine's clients.
      if (change.reset && !change.elsewhere) stream.publish(tenantId, 'reset', { reason: 'sandbox_reset' });
    },
  };

  return {
    outbox,
    dispatcher,
    endpoints,
    service,
    replays,
    stream,
    recorder,
    checks,
    checkRuns,
    sender,
    outbound: { policy, shares },
    lifecycle,
    databaseState: () => liveness.databaseState(),
    resigner: new Resigner(db, clock, endpoints, testSecret),
    start: () => dispatcher.start(),
    async close() {
      await checkRunner.stop();
      await dispatcher.close();
      await replays.close();
      await recorder.drain();
      await dispatcher.stopBeating();
      await stream.close();
      await sender.close();
      await tracer.close();
    },
  };
}
