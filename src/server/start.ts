import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../shared/node/package-root.ts';
import { withAmbientTransactions } from '../db/ambient.ts';
import { randomString } from '../shared/ids.ts';
import { AllowList } from '../webhooks/outbound/address-ranges.ts';
import { createApp } from './app.ts';
import { openSandboxDatabase } from './database.ts';
import { claimDataDir } from './claim-data-dir.ts';
import { defaultDataDir } from './data-dir.ts';
import { unknownAdminKeyNotice } from './admin-key.ts';
import { installSecrets } from './install-secrets.ts';
import { writeDiscovery } from './instance-lock.ts';
import { consoleLogger } from './log.ts';
import { IdempotencyKeys } from './middleware/idempotency.ts';
import { routeTable } from './route-table.ts';
import type { SandboxCreation } from './routes/sandboxes.ts';
import type { RunningSandbox, SandboxOptions } from './sandbox-options.ts';
import { openServices, startServing } from './start-services.ts';
import { staticUi } from './static-ui.ts';
import { resolveExposure, StartupError } from './auth/shared-server.ts';
import { cookiePort } from './auth/session-cookie.ts';
import { carriesAdminKey, type AuthConfig } from './auth/authenticate.ts';

// Callers and tests take the engine's types from here, beside startSandbox.
export type { RunningSandbox, SandboxOptions } from './sandbox-options.ts';

/** The host to put in URLs: a wildcard bind (--host 0.0.0.0 in Docker) is still opened as loopback. */
function urlHost(bindHost: string): string {
  if (bindHost === '0.0.0.0' || bindHost === '::') return '127.0.0.1';
  return bindHost.includes(':') ? `[${bindHost}]` : bindHost;
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
    // A worker of --workers gets its primary's admin key, or its primary's data dir to keep the database's in.
    const { admin, cursorSecret, fileKey } = await installSecrets(db, {
      given: exposure.adminKey ?? options.worker?.adminKey,
      ownDataDir: options.databaseUrl ? undefined : dataDir,
      keyDir: dataDir ?? options.worker?.adminKeyDir,
    });
    const adminKey = admin.key;
    const logger = options.logger ?? consoleLogger(() => (adminKey ? [adminKey] : []));
    logError = (message) => logger.error(message);
    if (tightened) logger.warn(tightened);
    // A worker of --workers leaves it to its primary, which knows whether another worker made the key.
    if (!adminKey && !options.worker) logger.warn(unknownAdminKeyNotice);

    const { services, policy, setBaseUrl } = await openServices(
      options,
      { db, databaseUrl, shared: exposure.shared, instanceId, logger, cursorSecret, fileKey },
      cleanups,
    );
    let auth: AuthConfig | undefined;
    // On a laptop anyone may create sandboxes (SPEC §3); a shared server's operator opens it explicitly.
    const creation: SandboxCreation = {
      open: !exposure.shared || options.openSandboxCreation === true,
      isAdmin: (ctx) => carriesAdminKey(ctx, auth!),
    };
    const routes = routeTable(services, {
      instanceId,
      worker: Boolean(options.worker),
      shared: exposure.shared,
      creation,
      auth: () => auth!,
      maxImportBytes: options.maxImportBytes,
    });
    await startServing(services, cleanups);

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
      adminKeyHash: admin.hash,
      cookieName: `sandbay_admin_${cookieSuffix}`,
      adminCookie: !exposure.shared,
      session: { name: `sandbay_session_${cookieSuffix}`, publicUrl: exposure.publicUrl },
      tokens: services.tokens,
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
          adminKeyHash: admin.hash,
          cookieName: auth.cookieName,
          adminCookie: auth.adminCookie,
        }),
      ],
    });
    server.on('request', app.callback());
    const url = `http://${urlHost(host)}:${port}`;
    const publicUrl = exposure.publicUrl ?? url;
    setBaseUrl(publicUrl);
    policy.attach({ ownUrl: url, port, publicUrl: exposure.publicUrl });
    // The discovery file is the operator's (mode 0600): it keeps the admin key for the CLI on this
    // machine, and this engine's own address (through a public URL the lock's probe could reach another engine).
    const discovery = { url, ...(exposure.publicUrl ? { publicUrl } : {}), pid: process.pid, instanceId, adminKey };
    if (dataDir) cleanups.push(writeDiscovery(dataDir, discovery));
    const readyUrl = exposure.shared || !adminKey ? `${publicUrl}/` : `${publicUrl}/?key=${adminKey}`;
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
