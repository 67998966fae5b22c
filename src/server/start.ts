import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot, packageVersion } from '../shared/node/package-root.ts';
import { detached, withAmbientTransactions } from '../db/ambient.ts';
import { Invalidations } from '../db/invalidations.ts';
import type { Db } from '../db/database.ts';
import type { PostgresTimeouts } from '../db/timeouts.ts';
import { TokenStore } from '../domain/oauth/token-store.ts';
import { Sandboxes } from '../domain/sandboxes/sandboxes.ts';
import { SandboxClock } from '../schedule/clock.ts';
import { randomString } from '../shared/ids.ts';
import { Scheduler } from '../schedule/scheduler.ts';
import { attemptTimeoutSeconds } from '../shared/retry-schedule.ts';
import { createWebhookEngine } from '../webhooks/engine.ts';
import { otlpTracesUrl } from '../webhooks/tracing/config.ts';
import { databaseAddress, OutboundPolicy, type HostLookup } from '../webhooks/outbound/policy.ts';
import { AllowList } from '../webhooks/outbound/address-ranges.ts';
import { createApp } from './app.ts';
import { openSandboxDatabase, startupLockKey } from './database.ts';
import { claimDataDir } from './claim-data-dir.ts';
import { newAdminKey, ownDatabaseAdminKey } from './admin-key.ts';
import { defaultDataDir } from './data-dir.ts';
import { writeDiscovery } from './instance-lock.ts';
import { consoleLogger, type Logger } from './log.ts';
import { IdempotencyKeys } from './middleware/idempotency.ts';
import { CursorCodec } from './pagination.ts';
import type { RouteDef } from './route.ts';
import { clockRoutes } from './routes/clock.ts';
import { eventRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { metaRoutes } from './routes/meta.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { oauthClientRoutes } from './routes/oauth-clients.ts';
import { OAuthClients } from '../domain/oauth/client-registry.ts';
import { orderRoutes } from './routes/orders.ts';
import { sandboxRoutes, type SandboxCreation } from './routes/sandboxes.ts';
import { portableRoutes } from './routes/portable.ts';
import { deliveryExportRoutes } from './routes/delivery-export.ts';
import { defaultMaxImportBytes } from './upload.ts';
import { PortableSandboxes } from '../domain/sandboxes/portable/portable.ts';
import { topicRoutes, webhooksSection } from './routes/topics.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { deliveryCompareRoutes } from './routes/delivery-compare.ts';
import { importDomainRules } from './portable-row-rules.ts';
import { commerceRoutes } from './routes/commerce.ts';
import { startCommerceJobs } from '../domain/commerce/register.ts';
import { catcherRoutes } from './routes/catcher.ts';
import { checkRoutes } from './routes/checks.ts';
import { Catchers } from '../webhooks/catcher/catchers.ts';
import type { Services } from './services.ts';
import { staticUi } from './static-ui.ts';
import { resolveExposure, StartupError } from './auth/shared-server.ts';
import { cookiePort } from './auth/session-cookie.ts';
import { carriesAdminKey, type AuthConfig } from './auth/authenticate.ts';
import { sessionRoutes } from './routes/session.ts';

export interface SandboxOptions {
  /** Default 4400; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Extra Host names to accept (e.g. host.docker.internal). */
  allowHosts?: string[];
  /**
   * The URL users and receivers see (behind a load balancer or proxy): catchers, the OpenAPI
   * `servers` entry, the ready line, the discovery file and the inspector's links use it, and
   * the Host/Origin guards accept it. An origin: http(s)://host[:port], no path.
   */
  publicUrl?: string;
  /**
   * The admin key, given by the operator instead of the data dir's own (admin-key.ts). Required when
   * the server is shared (a --host beyond loopback, or a non-loopback publicUrl); at least 32 characters.
   */
  adminKey?: string;
  /** Default: the platform data dir (SPEC §1). */
  dataDir?: string;
  /** Scratch storage, removed on close. */
  memory?: boolean;
  /** Run on this PostgreSQL server (postgres://…) instead of PGlite; the data dir then keeps only the lock and server.json. */
  databaseUrl?: string;
  /** Run on a PostgreSQL server Sandbay starts itself in <dataDir>/postgres (scratch storage with memory). */
  postgres?: boolean;
  /** Database connections of this engine on PostgreSQL (default 10). */
  poolSize?: number;
  /** PostgreSQL timeouts: connect, statement, lock, idle in transaction (src/db/timeouts.ts has the defaults). */
  databaseTimeouts?: Partial<PostgresTimeouts>;
  logger?: Logger;
  /** One log line per request (path only, never the query). Default true. */
  logRequests?: boolean;
  /** Per-attempt webhook timeout; SPEC's 10 s by default (tests shorten it). */
  attemptTimeoutMs?: number;
  /** Deliveries kept per sandbox before older finished ones are pruned (default 10,000). */
  maxDeliveriesPerSandbox?: number;
  /**
   * Set in a worker of `serve --workers N`: its primary holds the data dir (lock, discovery file,
   * managed PostgreSQL), and the workers answer GET /api/v1/health with the primary's instance id.
   */
  worker?: { instanceId: string; adminKey?: string };
  /** How long a claimed delivery stays leased to this engine (default 30 s; the team tests shorten it). */
  deliveryLeaseMs?: number;
  /** The slow poll for due deliveries and stopped engines' leases (default 2 s). */
  deliveryPollMs?: number;
  /** How long one heartbeat of this engine vouches for it (default 20 s; the team tests shorten it). */
  engineAliveMs?: number;
  /** The slow poll for commerce jobs due that no engine has run (default 5 s; the team tests shorten it). */
  jobPollMs?: number;
  /** The largest sandbox file POST /api/v1/sandboxes/import accepts, in bytes (default 256 MiB). */
  maxImportBytes?: number;
  /**
   * `--allow-receivers`: on a shared server, CIDR blocks outbound requests may reach although they are
   * loopback, private, link-local, this server or the database (SPEC §9). Ignored on a laptop.
   */
  allowReceivers?: string[];
  /** How receivers' host names are resolved (default: the system resolver). Tests pass a stub. */
  outboundLookup?: HostLookup;
  /** On a shared server, let anyone create a sandbox (POST /api/v1/sandboxes without the admin key). */
  openSandboxCreation?: boolean;
  /** A live-stream client that leaves its buffer full this long is dropped (default 30 s; tests shorten it). */
  streamStallMs?: number;
  /**
   * `--otlp-endpoint`: export a span per delivery attempt over OTLP/HTTP to this base URL (…/v1/traces is
   * added). Default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, else no export.
   */
  otlpEndpoint?: string;
}

export interface RunningSandbox {
  /** This process's own address, http://127.0.0.1:<port> */
  url: string;
  /** What users and receivers see: the publicUrl option, else `url`. */
  publicUrl: string;
  /** The URL to open: carries the admin key on loopback (SPEC §8), never on a shared server (§9). */
  readyUrl: string;
  /** Listening beyond loopback (or published beyond it): browsers sign in with a sandbox's credentials. */
  shared: boolean;
  adminKey: string;
  /** This engine run's id (its lock, discovery file and health route name it). */
  instanceId: string;
  port: number;
  /**
   * The address the socket is bound to, as the OS says: 127.0.0.1, or a wildcard (0.0.0.0, ::) that takes every
   * interface.
   */
  boundAddress: string;
  dataDir?: string;
  services: Services;
  /** Every route definition served (what the OpenAPI document is built from). */
  routes: readonly RouteDef[];
  close(): Promise<void>;
}

/** The host to put in URLs: a wildcard bind (--host 0.0.0.0 in Docker) is still opened as loopback. */
function urlHost(bindHost: string): string {
  if (bindHost === '0.0.0.0' || bindHost === '::') return '127.0.0.1';
  return bindHost.includes(':') ? `[${bindHost}]` : bindHost;
}

/** Per-install secrets live in the database's meta table, created on first start. */
async function installSecret(db: Db, key: string, make: () => string): Promise<string> {
  const [row] = await db.query<{ value: string }>(
    `insert into meta (key, value) values ($1, $2) on conflict (key) do update set value = meta.value returning value`,
    [key, make()],
  );
  return row.value;
}

/** The one engine factory: headless command, Electron main process and every test use it. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  // Checked before anything opens: a refusal leaves no data dir lock or database behind.
  const exposure = resolveExposure({ host, publicUrl: options.publicUrl, adminKey: options.adminKey });
  try {
    new AllowList(options.allowReceivers ?? []);
  } catch (err) {
    throw new StartupError(`--allow-receivers: ${(err as Error).message}`);
  }
  // A cluster worker's data dir (lock, discovery file, managed PostgreSQL) is its primary's.
  const dataDir = options.memory || options.worker ? undefined : (options.dataDir ?? defaultDataDir());
  const cleanups: (() => void | Promise<void>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  // Names this engine run in its lock, its discovery file and GET /api/v1/health alike.
  const instanceId = options.worker?.instanceId ?? `ins_${randomString(20)}`;
  try {
    const { databaseUrl, tightened } = await claimDataDir(
      { dataDir, instanceId, databaseUrl: options.databaseUrl, postgres: options.postgres },
      cleanups,
    );
    // Until the admin key is known, a logger that redacts it cannot exist: database trouble goes to stderr.
    let logError = (message: string) => console.error(`sandbay: ${message}`);
    const db = withAmbientTransactions(
      await openSandboxDatabase({
        dataDir: dataDir && join(dataDir, 'pgdata'),
        memory: options.memory,
        databaseUrl,
        poolSize: options.poolSize,
        timeouts: options.databaseTimeouts,
        log: (message) => logError(message),
      }),
    );
    cleanups.push(() => db.close());
    // The admin key: the operator's; else the data dir's when its database lives there (PGlite or
    // --postgres), the same whichever it runs on; else, on a --database-url, the database's own (shared
    // by every engine on it). A worker of --workers gets its primary's.
    const ownDatabase = dataDir !== undefined && !options.databaseUrl;
    const { adminKey, cursorSecret, fileKey } = await db.withAdvisoryLock(startupLockKey, async () => ({
      adminKey:
        exposure.adminKey ??
        options.worker?.adminKey ??
        (ownDatabase ? await ownDatabaseAdminKey(dataDir, db) : await installSecret(db, 'admin_key', newAdminKey)),
      cursorSecret: await installSecret(db, 'cursor_secret', () => randomString(32)),
      fileKey: await installSecret(db, 'file_signing_key', () => randomString(32)),
    }));
    const logger = options.logger ?? consoleLogger(() => [adminKey]);
    logError = (message) => logger.error(message);
    if (tightened) logger.warn(tightened);

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
      shared: exposure.shared,
      allowReceivers: options.allowReceivers,
      lookup: options.outboundLookup,
      database: databaseAddress(databaseUrl),
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
        fileKey,
        domainRules: importDomainRules,
      }),
      cursors: new CursorCodec(cursorSecret),
      baseUrl: () => baseUrl,
    };
    services.sandboxes.lifecycle.push(webhooks.lifecycle);
    // Every cache has registered: from here on, other engines' changes reach them.
    await invalidations.start();
    cleanups.push(() => invalidations.close());
    cleanups.push(
      await startCommerceJobs(services, { pollMs: options.jobPollMs, onError: (message) => logger.error(message) }),
    );
    const catchers = new Catchers(db, clock, services.baseUrl);

    let auth: AuthConfig | undefined;
    // On a laptop anyone may create sandboxes (SPEC §3); a shared server's operator opens it explicitly.
    const creation: SandboxCreation = {
      open: !exposure.shared || options.openSandboxCreation === true,
      isAdmin: (ctx) => carriesAdminKey(ctx, auth!),
    };
    const routes: RouteDef[] = [];
    routes.push(
      ...sessionRoutes(services, { shared: exposure.shared, auth: () => auth!, openSandboxCreation: creation.open }),
      ...sandboxRoutes(services, creation),
      ...portableRoutes(services, { maxImportBytes: options.maxImportBytes ?? defaultMaxImportBytes, creation }),
      ...oauthClientRoutes(services, new OAuthClients(db, tokens)),
      ...oauthRoutes(services, { shared: exposure.shared, auth: () => auth! }),
      ...orderRoutes(services),
      ...clockRoutes(services),
      ...topicRoutes(),
      ...deliveryExportRoutes(services),
      ...webhookRoutes(services),
      ...deliveryCompareRoutes(services),
      ...checkRoutes(services),
      ...eventRoutes(services),
      ...commerceRoutes(services),
      ...catcherRoutes(services, catchers),
      ...healthRoutes({ instanceId, version: packageVersion(), database: () => webhooks.databaseState() }),
      ...metricsRoutes(db, Boolean(options.worker)),
      ...metaRoutes(
        () => routes,
        () => ({ webhooks: webhooksSection() }),
        services.baseUrl,
      ),
    );
    await scheduler.start();
    cleanups.push(() => scheduler.stop());
    await webhooks.start();
    cleanups.push(() => webhooks.dispatcher.close());
    // Runs first (cleanups run in reverse): a DLQ replay job stops taking its next deliveries, or the
    // scheduler's wait for attempts in flight would last until the whole job had run.
    cleanups.push(() => webhooks.replays.close());

    // Listen first: the admin cookie's name carries the port, which --port 0 only knows now.
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 4400, host, () => resolve());
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const idempotency = new IdempotencyKeys(db);
    cleanups.push(
      idempotency.startPurging(undefined, (err) =>
        logger.error(`purging idempotency keys failed: ${(err as Error)?.stack ?? err}`),
      ),
    );
    const { port, address: boundAddress } = server.address() as AddressInfo;
    const cookieSuffix = cookiePort(port, exposure.publicUrl);
    auth = {
      adminKey,
      cookieName: `sandbay_admin_${cookieSuffix}`,
      adminCookie: !exposure.shared,
      session: { name: `sandbay_session_${cookieSuffix}`, publicUrl: exposure.publicUrl },
      tokens,
      sandboxExists: (id: string) => services.sandboxes.exists(id),
    };
    const app = createApp({
      host,
      allowHosts: options.allowHosts ?? [],
      publicUrl: exposure.publicUrl,
      auth,
      routes,
      logger,
      logRequests: options.logRequests ?? true,
      idempotency,
      before: [
        staticUi({
          dir: join(packageRoot(), 'out', 'renderer'),
          adminKey,
          cookieName: auth.cookieName,
          adminCookie: auth.adminCookie,
        }),
      ],
    });
    server.on('request', app.callback());
    const url = `http://${urlHost(host)}:${port}`;
    const publicUrl = exposure.publicUrl ?? url;
    baseUrl = publicUrl;
    policy.attach({ ownUrl: url, port, publicUrl: exposure.publicUrl });
    // The discovery file is the operator's (mode 0600): it keeps the admin key for the CLI on this
    // machine, and this engine's own address (through a public URL the lock's probe could reach another engine).
    const discovery = { url, ...(exposure.publicUrl ? { publicUrl } : {}), pid: process.pid, instanceId, adminKey };
    if (dataDir) cleanups.push(writeDiscovery(dataDir, discovery));
    const readyUrl = exposure.shared ? `${publicUrl}/` : `${publicUrl}/?key=${adminKey}`;
    return {
      url,
      publicUrl,
      readyUrl,
      shared: exposure.shared,
      adminKey,
      instanceId,
      port,
      boundAddress,
      dataDir,
      services,
      routes,
      close: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** The OTLP exporter of attempt spans when export is on; the SDK is loaded only then (no cost when off). */
async function attemptTracer(endpoint: string | undefined) {
  const url = otlpTracesUrl(endpoint, process.env);
  if (!url) return undefined;
  const { otlpAttemptTracer } = await import('../webhooks/tracing/otlp.ts');
  return otlpAttemptTracer({
    url,
    serviceName: process.env.OTEL_SERVICE_NAME || 'sandbay',
    serviceVersion: packageVersion(),
  });
}
