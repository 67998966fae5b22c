import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import { Invalidations } from '../db/invalidations.ts';
import { startCommerceJobs } from '../domain/commerce/register.ts';
import { TokenStore } from '../domain/oauth/token-store.ts';
import { PortableSandboxes } from '../domain/sandboxes/portable/portable.ts';
import { Sandboxes } from '../domain/sandboxes/sandboxes.ts';
import { SandboxClock } from '../schedule/clock.ts';
import { Scheduler } from '../schedule/scheduler.ts';
import { randomString } from '../shared/ids.ts';
import { packageVersion } from '../shared/node/package-root.ts';
import { attemptTimeoutSeconds } from '../shared/retry-schedule.ts';
import { createWebhookEngine } from '../webhooks/engine.ts';
import { databaseAddress, OutboundPolicy } from '../webhooks/outbound/policy.ts';
import { attemptTracer } from './attempt-tracer.ts';
import type { Logger } from './log.ts';
import { CursorCodec } from './pagination.ts';
import { importDomainRules } from './portable-row-rules.ts';
import type { SandboxOptions } from './sandbox-options.ts';
import type { Services } from './services.ts';

/** What start-up decided before the services: the database, who this engine is, and the install's secrets. */
interface ServiceContext {
  db: Db;
  /** The PostgreSQL server's URL, if the engine runs on one (the outbound policy keeps receivers off it). */
  databaseUrl: string | undefined;
  shared: boolean;
  instanceId: string;
  logger: Logger;
  cursorSecret: string;
  fileKey: string;
}

interface StartedServices {
  services: Services;
  policy: OutboundPolicy;
  /** The URL users and receivers see, known only once the server listens. */
  setBaseUrl(url: string): void;
}

/**
 * Opens what route handlers use (caches, scheduler, webhook engine, domain services, commerce jobs) and
 * pushes each one's stop onto `cleanups`; the scheduler and deliveries start later, in startServing.
 */
export async function openServices(
  options: SandboxOptions,
  context: ServiceContext,
  cleanups: (() => void | Promise<void>)[],
): Promise<StartedServices> {
  const { db, logger, instanceId } = context;
  const invalidations = new Invalidations(db);
  const clock = new SandboxClock();
  await clock.load(db, invalidations);
  const tokens = new TokenStore(db, invalidations);
  const scheduler = new Scheduler(
    clock,
    (err, job) => logger.error(`${job.kind} job ${job.id} failed: ${(err as Error)?.stack ?? err}`),
    (fn) => detached(db, fn),
  );
  const policy = new OutboundPolicy({
    shared: context.shared,
    allowReceivers: options.allowReceivers,
    lookup: options.outboundLookup,
    database: databaseAddress(context.databaseUrl),
  });
  const webhooks = createWebhookEngine({
    // Workers of one `--workers` run share the primary's instance id; each holds its own leases.
    db,
    clock,
    scheduler,
    owner: options.worker ? `${instanceId}/${randomString(8)}` : instanceId,
    leaseMs: options.deliveryLeaseMs,
    pollMs: options.deliveryPollMs,
    aliveMs: options.engineAliveMs,
    attemptTimeoutMs: options.attemptTimeoutMs ?? attemptTimeoutSeconds * 1000,
    maxDeliveriesPerSandbox: options.maxDeliveriesPerSandbox ?? 10_000,
    onError: (message) => logger.error(message),
    invalidations,
    policy,
    streamStallMs: options.streamStallMs,
    tracer: await attemptTracer(options.otlpEndpoint),
  });
  cleanups.push(() => webhooks.close());
  await webhooks.stream.start();
  let baseUrl = '';
  const sandboxes = new Sandboxes(db, tokens, clock, invalidations);
  const services: Services = {
    db,
    clock,
    tokens,
    scheduler,
    webhooks,
    sandboxes,
    events: webhooks.outbox,
    portable: new PortableSandboxes({
      db,
      sandboxes,
      clock,
      invalidations,
      sandbayVersion: packageVersion(),
      baseUrl: () => baseUrl,
      policy,
      fileKey: context.fileKey,
      domainRules: importDomainRules,
    }),
    cursors: new CursorCodec(context.cursorSecret),
    baseUrl: () => baseUrl,
  };
  services.sandboxes.lifecycle.push(webhooks.lifecycle);
  // Every cache has registered: from here on, other engines' changes reach them.
  await invalidations.start();
  cleanups.push(() => invalidations.close());
  cleanups.push(
    await startCommerceJobs(services, {
      pollMs: options.jobPollMs,
      onError: (message) => logger.error(message),
      onJobFailed: (tenantId, id, error) => webhooks.stream.publish(tenantId, 'job.failed', { id, error }),
    }),
  );
  return { services, policy, setBaseUrl: (url) => (baseUrl = url) };
}

/** Starts the due jobs and deliveries, once every route exists; their stops go onto `cleanups`. */
export async function startServing(services: Services, cleanups: (() => void | Promise<void>)[]): Promise<void> {
  const { scheduler, webhooks } = services;
  await scheduler.start();
  cleanups.push(() => scheduler.stop());
  await webhooks.start();
  cleanups.push(() => webhooks.dispatcher.close());
  // Runs first (cleanups run in reverse): a DLQ replay job stops taking its next deliveries, or the
  // scheduler's wait for attempts in flight would last until the whole job had run.
  cleanups.push(() => webhooks.replays.close());
}
