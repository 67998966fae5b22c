import { resolve } from 'node:path';
import { registerServer, serverRegistryDir } from '../../server/server-registry.ts';
import type { RunningSandbox, SandboxOptions } from '../../server/start.ts';
import { DataDirLockedError } from '../../server/instance-lock.ts';
import { StartupError } from '../../server/auth/shared-server.ts';
import { CliError } from '../errors.ts';
import { parseDuration } from '../duration.ts';

export interface ServeFlags {
  port: string;
  host: string;
  allowHost: string[];
  publicUrl?: string;
  adminKey?: string;
  allowReceivers?: string;
  openSandboxCreation?: boolean;
  dataDir?: string;
  memory?: boolean;
  quiet?: boolean;
  databaseUrl?: string;
  postgres?: boolean;
  workers?: string;
  poolSize?: string;
  connectTimeout?: string;
  statementTimeout?: string;
  lockTimeout?: string;
  idleInTransactionTimeout?: string;
  otlpEndpoint?: string;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0–65535, not ${value}`);
  return port;
}

/** A PostgreSQL connection URL, or a usage error saying what one looks like. */
export function checkDatabaseUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || !/^postgres(ql)?:$/.test(url.protocol))
    throw new CliError('--database-url must look like postgres://user:password@host:5432/database');
  return value;
}

/** An http(s) URL, or a usage error naming the flag. */
function checkHttpUrl(flag: string, value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new CliError(`${flag} must be an http(s) URL, e.g. http://localhost:4318, not ${value}`);
  return value;
}

/** The URL without its password, for messages. */
export function redactUrl(value: string): string {
  const url = new URL(value);
  if (url.password) url.password = '***';
  return url.toString();
}

/** `--workers N`: how many engine processes share the port (1–64). */
export function parseWorkers(value: string): number {
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw new CliError(`--workers must be 1–64, not ${value}`);
  return workers;
}

/** `--pool-size N`: PostgreSQL connections per engine process (2–1000). */
export function parsePoolSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 2 || size > 1000)
    throw new CliError(`--pool-size must be 2–1000, not ${value}`);
  return size;
}

/**
 * The PostgreSQL timeouts given as flags (or their SANDBAY_* variables), in milliseconds; the rest keep their defaults.
 */
export function databaseTimeouts(flags: ServeFlags): SandboxOptions['databaseTimeouts'] {
  const ms = (value: string | undefined) => (value === undefined ? undefined : Math.round(parseDuration(value) * 1000));
  const given = {
    connectMs: ms(flags.connectTimeout),
    statementMs: ms(flags.statementTimeout),
    lockMs: ms(flags.lockTimeout),
    idleInTransactionMs: ms(flags.idleInTransactionTimeout),
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}

/** A tuning knob from the environment (team mode's lease and poll; the team tests shorten them). */
function msFromEnv(name: string): number | undefined {
  const value = process.env[name];
  if (!value) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new CliError(`${name} must be a whole number of milliseconds above 0, not ${value}`);
  return ms;
}

/** A switch from the environment: 1/true/yes/on turns it on, 0/false/no/off or empty leaves it off. */
function switchOn(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new CliError(`${name} takes 1 or 0, not ${value}`);
}

/** Puts this server in the per-user registry the CLI looks in (docs/cli.md, "Finding the server"). */
function register(
  running: Pick<RunningSandbox, 'url' | 'publicUrl' | 'port' | 'instanceId' | 'adminKey' | 'dataDir'>,
  flags: ServeFlags,
): () => void {
  // A --memory server keeps no files, but the data dir named with it still says which server is meant.
  const dataDir = running.dataDir ?? flags.dataDir;
  try {
    return registerServer({
      url: running.url,
      ...(running.publicUrl !== running.url ? { publicUrl: running.publicUrl } : {}),
      port: running.port,
      pid: process.pid,
      instanceId: running.instanceId,
      dataDir: dataDir ? resolve(dataDir) : null,
      memory: running.dataDir === undefined,
      adminKey: running.adminKey,
    });
  } catch (err) {
    // A read-only home (a container) must not stop the server: it serves, the CLI just needs --url there.
    process.stderr.write(
      `sandbay: not registered in ${serverRegistryDir()} (${(err as Error).message}): the CLI will need --url ${running.url}\n`,
    );
    return () => undefined;
  }
}

const wildcards: Record<string, string> = { '0.0.0.0': 'every IPv4 interface', '::': 'every interface' };

/**
 * Where the server listens, when the ready URL does not say it all. A wildcard bind names itself and
 * the URLs that reach it: SPEC §1's http://127.0.0.1:<port> on this machine, and from others only the
 * names the Host guard accepts (--public-url, --allow-host), since it refuses a bare address.
 */
function listeningOn(
  running: Pick<RunningSandbox, 'url' | 'publicUrl' | 'port' | 'boundAddress'>,
  allowHosts: string[],
): string[] {
  const { boundAddress: address, port } = running;
  if (!wildcards[address]) return running.publicUrl !== running.url ? [`listening on ${running.url}`] : [];
  const bound = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  const others = [
    ...(running.publicUrl !== running.url ? [running.publicUrl] : []),
    ...allowHosts.map((name) => `http://${name.includes(':') ? `[${name}]` : name}:${port}`),
  ];
  const here = `listening on ${bound}, ${wildcards[address]}: ${running.url} on this machine`;
  return others.length
    ? [`${here}, ${others.join(' and ')} from others`]
    : [here, 'other machines need a name it accepts (--allow-host or --public-url)'];
}

/** Runs the engine headless until SIGINT/SIGTERM; prints one ready line with the UI URL. */
export async function serve(flags: ServeFlags, note?: string): Promise<void> {
  const options: SandboxOptions = {
    port: parsePort(flags.port),
    host: flags.host,
    allowHosts: flags.allowHost,
    // An empty SANDBAY_ADMIN_KEY= or SANDBAY_PUBLIC_URL= means "not set", as shells use it.
    publicUrl: flags.publicUrl || undefined,
    adminKey: flags.adminKey || undefined,
    dataDir: flags.dataDir,
    memory: flags.memory,
    logRequests: !flags.quiet,
    databaseUrl: flags.databaseUrl && checkDatabaseUrl(flags.databaseUrl),
    postgres: flags.postgres,
    deliveryLeaseMs: msFromEnv('SANDBAY_DELIVERY_LEASE_MS'),
    deliveryPollMs: msFromEnv('SANDBAY_DELIVERY_POLL_MS'),
    allowReceivers: flags.allowReceivers
      ? flags.allowReceivers
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean)
      : undefined,
    openSandboxCreation:
      flags.openSandboxCreation === true ||
      switchOn('SANDBAY_OPEN_SANDBOX_CREATION', process.env.SANDBAY_OPEN_SANDBOX_CREATION),
    engineAliveMs: msFromEnv('SANDBAY_ENGINE_ALIVE_MS'),
    poolSize: flags.poolSize === undefined ? undefined : parsePoolSize(flags.poolSize),
    databaseTimeouts: databaseTimeouts(flags),
    otlpEndpoint: flags.otlpEndpoint && checkHttpUrl('--otlp-endpoint', flags.otlpEndpoint),
  };
  const workers = flags.workers === undefined ? undefined : parseWorkers(flags.workers);
  // The engine is loaded only here, when this process is to run it: `start` that opens the desktop
  // window and every client verb stay free of it.
  const { startSandbox } = await import('../../server/start.ts');
  const { clusterWorkerOptions, reportWorkerReady, startCluster } = await import('../../server/cluster.ts');
  const workerOptions = clusterWorkerOptions(options);
  let running;
  try {
    running = workerOptions
      ? await startSandbox(workerOptions)
      : workers
        ? await startCluster(options, workers, (line) => process.stderr.write(`sandbay: ${line}\n`))
        : await startSandbox(options);
  } catch (err) {
    if (err instanceof DataDirLockedError || err instanceof StartupError) throw new CliError(err.message);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CliError(`port ${flags.port} is in use; pass --port 0 for any free port`);
    // By name: an import of the database module would load the engine before it is needed.
    if ((err as Error)?.name === 'SchemaTooNewError') throw new CliError((err as Error).message);
    if (options.databaseUrl)
      throw new CliError(`cannot use the database at ${redactUrl(options.databaseUrl)}: ${(err as Error).message}`);
    throw err;
  }
  // Registered before the ready line, so whoever waits for that line finds it (a worker's primary registers for all).
  const unregister = workerOptions ? () => undefined : register(running, flags);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // A worker stops quietly: its primary says it once for all.
    if (!workerOptions) process.stdout.write(`${signal}: shutting down; pending deliveries stay queued\n`);
    unregister();
    await running.close();
    process.exit(process.exitCode ?? 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (workerOptions) {
    reportWorkerReady(running as RunningSandbox, () => void shutdown('disconnect'));
    return;
  }
  if (note) process.stdout.write(`${note}\n`);
  // The one deliberate secret in the output (SPEC §7): on loopback the ready URL carries the admin
  // key. A shared server never prints it (SPEC §9): the operator passed it and keeps it.
  const details = [
    ...listeningOn(running, options.allowHosts ?? []),
    `data: ${flags.databaseUrl ? redactUrl(flags.databaseUrl) : flags.postgres ? `PostgreSQL in ${running.dataDir ?? 'memory'}` : (running.dataDir ?? 'memory')}`,
    ...(workers ? [`${workers} worker${workers === 1 ? '' : 's'}`] : []),
    ...(running.shared ? ["shared: teammates sign in with their sandbox's credentials"] : []),
    ...(running.shared && options.allowReceivers?.length
      ? [`receivers may also be in ${options.allowReceivers.join(', ')}`]
      : []),
  ];
  process.stdout.write(`Sandbay ready: ${running.readyUrl}  (${details.join('; ')})\n`);
}
