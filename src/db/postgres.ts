import { createHash } from 'node:crypto';
import pg from 'pg';
import { runAfterCommit, type Db, type Queryable, type Tx } from './database.ts';
import { asDatabaseFault, isUnavailable, typedFaults } from './errors.ts';
import { PgListener } from './pg-listener.ts';
import { sandbayTypes } from './pg-types.ts';
import { describeLockHolder } from './lock-holder.ts';
import { logOrphanClientErrors } from './orphan-client-errors.ts';
import { defaultPostgresTimeouts, type PostgresTimeouts } from './timeouts.ts';
import { throttled } from '../shared/throttled-log.ts';

/** A prepared statement's name: the same for the same SQL (and plan generation) on every connection. */
const statementName = (sql: string, generation: number) =>
  `sandbay_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}_${generation}`;

export interface PostgresOptions {
  /** postgres://user:password@host:port/database (never logged: it may carry a password). */
  connectionString: string;
  /** Connections per engine (default 10): several engines share the server's max_connections (100 by default). */
  poolSize?: number;
  /** Client- and server-side timeouts (src/db/timeouts.ts); each defaults on its own. */
  timeouts?: Partial<PostgresTimeouts>;
  /** Where connection trouble is reported; messages never carry the connection string. */
  log?: (message: string) => void;
}

// admin_shutdown, crash_shutdown: the server ended this connection's backend (pg_terminate_backend,
// a restart) before the statement ran, so running it again on another connection runs it once.
const deadConnectionCodes = new Set(['57P01', '57P02']);

const isDeadConnection = (err: unknown) => deadConnectionCodes.has((err as { code?: string })?.code ?? '');

/**
 * Runs fn again while its connection turns out to be dead: idle clients the pool has not yet dropped
 * (each failure destroys one, so at most the pool's size of them).
 */
async function onLiveConnection<T>(attempts: number, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !isDeadConnection(err)) throw asDatabaseFault(err);
    }
  }
}

const tryLockSql = 'select pg_try_advisory_lock(hashtextextended($1, 0)) as locked';
const advisoryUnlockSql = 'select pg_advisory_unlock(hashtextextended($1, 0))';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A Db on a PostgreSQL server through a node-postgres pool (plus one LISTEN connection, opened on first
 * listen). This is the one place that owns connections: every client carries an 'error' listener from
 * the moment it connects (checked out or idle, a dropped connection is logged, never an unhandled
 * 'error' event), clients are released in `finally`, one whose connection failed is destroyed, and
 * every wait is bounded by the timeouts (src/db/timeouts.ts). Driver errors that mean "not now" reach
 * callers as DatabaseUnavailableError (src/db/errors.ts).
 */
export function openPostgres(options: PostgresOptions): Db {
  const log = options.log ?? ((message) => console.error(`sandbay: ${message}`));
  const poolSize = options.poolSize ?? 10;
  const timeouts = { ...defaultPostgresTimeouts, ...options.timeouts };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: poolSize,
    types: sandbayTypes(),
    application_name: 'sandbay',
    // Opening a connection, or waiting for a free one: a server that does not answer is a 503, not a hang.
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: 30_000,
    // The server cancels a statement after statement_timeout; a stalled server (SIGSTOP, a dead network
    // path) cannot, so the client gives up a little later and drops that connection.
    query_timeout: timeouts.statementMs > 0 ? timeouts.statementMs + 2_000 : undefined,
    statement_timeout: timeouts.statementMs || undefined,
    lock_timeout: timeouts.lockMs || undefined,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs || undefined,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  const lost = throttled(log, 5_000);
  // The connections not yet ended, for close(): pool.end() resolves once it has asked every connection to
  // end, before the server has closed them, and a managed server stopped right after would terminate
  // those backends under their clients ("terminating connection due to administrator command").
  const live = new Set<pg.PoolClient>();
  logOrphanClientErrors(lost);
  // By construction, every client has an 'error' listener for its whole life: pg-pool's own covers only
  // idle clients, and a checked-out client whose server goes away (a restart, pg_terminate_backend)
  // would otherwise crash the process with "Unhandled 'error' event".
  pool.on('connect', (client) => {
    client.on('error', (err) => lost(`database connection lost: ${err.message}`));
    live.add(client);
    client.once('end', () => live.delete(client));
  });
  // The pool re-emits an idle client's error after dropping it: already logged by the listener above.
  pool.on('error', () => undefined);
  let listener: PgListener | undefined;
  // Statements sent, for roundTrips(): counted where each is sent, retries included (each is one more trip).
  let trips = 0;
  const listenerOf = () => (listener ??= new PgListener(options.connectionString, log));
  const rowsOf =
    (source: pg.Pool | pg.PoolClient): Queryable['query'] =>
    async (sql, params) =>
      typedFaults(async () => (trips++, await source.query(sql, params as unknown[])).rows);
  // A hot read is a named statement: each pooled connection prepares it once and keeps its plan. A table
  // that changed shape makes the server refuse the kept plan (0A000): the next generation's name prepares it anew.
  const generations = new Map<string, number>();
  const preparedRows: Queryable['query'] = async (sql, params) => {
    const run = async () =>
      (trips++,
      await pool.query({
        name: statementName(sql, generations.get(sql) ?? 0),
        text: sql,
        values: params as unknown[],
      })).rows;
    try {
      return await run();
    } catch (err) {
      if ((err as { code?: string }).code !== '0A000') throw err;
      generations.set(sql, (generations.get(sql) ?? 0) + 1);
      return run();
    }
  };
  /**
   * A client holding the session advisory lock `key`, or undefined (released at once) when another session holds it.
   */
  const tryLock = async (key: string): Promise<pg.PoolClient | undefined> => {
    const client = await onLiveConnection(poolSize + 1, () => pool.connect());
    try {
      trips++;
      const {
        rows: [{ locked }],
      } = await client.query<{ locked: boolean }>(tryLockSql, [key]);
      if (locked) return client;
      client.release();
    } catch (err) {
      client.release(err as Error);
      throw asDatabaseFault(err);
    }
    return undefined;
  };

  return {
    driver: 'postgres',
    query: (sql, params, opts) =>
      onLiveConnection(poolSize + 1, () => (opts?.prepare ? preparedRows : rowsOf(pool))(sql, params)),
    async exec(sql) {
      trips++;
      await typedFaults(() => pool.query(sql)); // no parameters: the simple protocol, so several statements may run
    },
    async transaction(fn) {
      const client = await onLiveConnection(poolSize + 1, async () => {
        const candidate = await pool.connect();
        try {
          trips++;
          await candidate.query('begin');
          return candidate;
        } catch (err) {
          candidate.release(err as Error);
          throw err;
        }
      });
      const after: (() => void)[] = [];
      let broken: Error | undefined;
      try {
        const tx: Tx = {
          query: rowsOf(client),
          exec: async (sql) => void (await typedFaults(() => (trips++, client.query(sql)))),
          afterCommit: (cb) => void after.push(cb),
          notify: async (channel, payload) =>
            void (await typedFaults(() => (trips++, client.query('select pg_notify($1, $2)', [channel, payload])))),
        };
        const result = await fn(tx);
        // COMMIT of a transaction in which a statement failed (and fn caught it) answers ROLLBACK, not an error.
        const commit = await typedFaults(() => (trips++, client.query('commit')));
        if (commit.command !== 'COMMIT') throw new Error('transaction rolled back: a statement in it had failed');
        runAfterCommit(after, (err) => log(`after-commit callback failed: ${(err as Error)?.stack ?? err}`));
        return result;
      } catch (err) {
        // A connection that failed (or timed out) mid-transaction is not reused, whatever ROLLBACK says.
        if (isUnavailable(err)) broken = err as Error;
        else await (trips++, client.query('rollback')).catch((rollbackErr: Error) => (broken = rollbackErr));
        throw err;
      } finally {
        // A client whose ROLLBACK failed is in an unknown state: destroy it instead of pooling it.
        client.release(broken);
      }
    },
    listen: (channel, handler) => listenerOf().listen(channel, handler),
    onNotificationsMissed: (fn) => listenerOf().onGap(fn),
    onNotificationsLost: (fn) => listenerOf().onLost(fn),
    async notify(channel, payload) {
      await typedFaults(() => (trips++, pool.query('select pg_notify($1, $2)', [channel, payload])));
    },
    async withAdvisoryLock(key, fn) {
      // Tried, not waited for: no client is held while another session has the lock, and a holder that
      // never lets go (a stopped process whose connection stays open) is named after sessionLockWaitMs, not waited on
      // for ever.
      const deadline = Date.now() + timeouts.sessionLockWaitMs;
      let client: pg.PoolClient | undefined;
      for (let delay = 25; !(client = await tryLock(key)); delay = Math.min(delay * 2, 500)) {
        if (Date.now() >= deadline)
          throw new Error(await describeLockHolder((sql, params) => rowsOf(pool)(sql, params), key));
        await sleep(delay);
      }
      let broken: Error | undefined;
      try {
        // Session-level, so the lock is held on this one client for as long as fn runs, across its transactions.
        return await fn();
      } finally {
        await (trips++, client.query(advisoryUnlockSql, [key])).catch((err: Error) => (broken = err));
        client.release(broken);
      }
    },
    roundTrips: () => trips,
    async close() {
      await listener?.close();
      await pool.end();
      await Promise.all([...live].map((client) => new Promise((resolve) => client.once('end', resolve))));
    },
  };
}
