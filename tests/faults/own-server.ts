// Engines in this process on a fault server of the file's own (tests/helpers/fault-postgres.ts): an idle
// transaction or a killed connection on the shared server would stall or break every other test using it.
import { after } from 'node:test';
import pg from 'pg';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/server/start.ts';
import { startFaultServer, type FaultServer } from '../helpers/fault-postgres.ts';

const quiet = { info() {}, warn() {}, error() {} };

/** Runs `sql` on a connection of its own to `url`. */
export async function sql<T extends pg.QueryResultRow = any>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A server of the file's own, started on first use and stopped after the file's tests, with a database
 * for the engines (`url()`); `database()` makes another on the same server; `start()` runs an engine on `url()`.
 */
export function useOwnServer(options: SandboxOptions = {}) {
  let started: Promise<{ server: FaultServer; url: string }> | undefined;
  const engines: RunningSandbox[] = [];
  const ready = () =>
    (started ??= (async () => {
      const server = await startFaultServer();
      return { server, url: await server.createDatabase() };
    })());
  after(async () => {
    for (const engine of engines.splice(0)) await engine.close().catch(() => {});
    if (started) await (await started).server.close();
  });
  return {
    /** The engines' database. */
    url: async () => (await ready()).url,
    /** The server's maintenance database (for pg_stat_activity, ALTER DATABASE …). */
    serverUrl: async () => (await ready()).server.adminUrl,
    /** Another database on the same server. */
    database: async () => (await ready()).server.createDatabase(),
    async start(extra: SandboxOptions = {}): Promise<RunningSandbox> {
      const engine = await startSandbox({
        databaseUrl: (await ready()).url,
        memory: true,
        port: 0,
        logRequests: false,
        logger: quiet,
        ...options,
        ...extra,
      });
      engines.push(engine);
      return engine;
    },
  };
}

/** A session left open inside a transaction that has taken a transaction id (a forgotten psql `BEGIN`). */
export async function idleInTransaction(url: string): Promise<{ xid: string; end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url, application_name: 'idle-in-transaction' });
  client.on('error', () => {}); // the server may stop first
  await client.connect();
  await client.query('begin');
  const [{ xid }] = (await client.query<{ xid: string }>('select txid_current()::text as xid')).rows;
  return { xid, end: () => client.end() };
}
