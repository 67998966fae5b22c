import { createHash } from 'node:crypto';
import pg from 'pg';
import { runAfterCommit, type Db, type Queryable, type Tx } from './database.ts';
import { PgListener } from './pg-listener.ts';
import { sandbayTypes } from './pg-types.ts';

/** A prepared statement's name: the same for the same SQL (and plan generation) on every connection. */
const statementName = (sql: string, generation: number) => `sandbay_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}_${generation}`;

export interface PostgresOptions {
  /** postgres://user:password@host:port/database (never logged: it may carry a password). */
  connectionString: string;
  /** Connections per engine (default 10): several engines share the server's max_connections (100 by default). */
  poolSize?: number;
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
      if (attempt >= attempts || !isDeadConnection(err)) throw err;
    }
  }
}

const advisoryLockSql = 'select pg_advisory_lock(hashtextextended($1, 0))';
const advisoryUnlockSql = 'select pg_advisory_unlock(hashtextextended($1, 0))';

/** A Db on a PostgreSQL server through a node-postgres pool (plus one LISTEN connection, opened on first listen). */
export function openPostgres(options: PostgresOptions): Db {
  const log = options.log ?? ((message) => console.error(`sandbay: ${message}`));
  const poolSize = options.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: poolSize,
    types: sandbayTypes(),
    application_name: 'sandbay',
    // A server that does not answer is an error to report, not a hang.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client whose connection dies (server restart, pg_terminate_backend) emits 'error' on the
  // pool; unhandled, that would crash the process. The pool drops the client and opens a new one later.
  pool.on('error', (err) => log(`idle database connection lost: ${err.message}`));
  let listener: PgListener | undefined;
  const listenerOf = () => (listener ??= new PgListener(options.connectionString, log));
  const rowsOf = (source: pg.Pool | pg.PoolClient): Queryable['query'] => async (sql, params) =>
    (await source.query(sql, params as unknown[])).rows;
  // A hot read is a named statement: each pooled connection prepares it once and keeps its plan. A table
  // that changed shape makes the server refuse the kept plan (0A000): the next generation's name prepares it anew.
  const generations = new Map<string, number>();
  const preparedRows: Queryable['query'] = async (sql, params) => {
    const run = async () => (await pool.query({ name: statementName(sql, generations.get(sql) ?? 0), text: sql, values: params as unknown[] })).rows;
    try {
      return await run();
    } catch (err) {
      if ((err as { code?: string }).code !== '0A000') throw err;
      generations.set(sql, (generations.get(sql) ?? 0) + 1);
      return run();
    }
  };

  return {
    driver: 'postgres',
    query: (sql, params, opts) => onLiveConnection(poolSize + 1, () => (opts?.prepare ? preparedRows : rowsOf(pool))(sql, params)),
    async exec(sql) {
      await pool.query(sql); // no parameters: the simple protocol, so several statements may run
    },
    async transaction(fn) {
      const client = await onLiveConnection(poolSize + 1, async () => {
        const candidate = await pool.connect();
        try {
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
          exec: async (sql) => void (await client.query(sql)),
          afterCommit: (cb) => void after.push(cb),
          notify: async (channel, payload) => void (await client.query('select pg_notify($1, $2)', [channel, payload])),
        };
        const result = await fn(tx);
        // COMMIT of a transaction in which a statement failed (and fn caught it) answers ROLLBACK, not an error.
        const commit = await client.query('commit');
        if (commit.command !== 'COMMIT') throw new Error('transaction rolled back: a statement in it had failed');
        runAfterCommit(after, (err) => log(`after-commit callback failed: ${(err as Error)?.stack ?? err}`));
        return result;
      } catch (err) {
        await client.query('rollback').catch((rollbackErr: Error) => (broken = rollbackErr));
        throw err;
      } finally {
        // A client whose ROLLBACK failed is in an unknown state: destroy it instead of pooling it.
        client.release(broken);
      }
    },
    listen: (channel, handler) => listenerOf().listen(channel, handler),
    onNotificationsMissed: (fn) => listenerOf().onGap(fn),
    async notify(channel, payload) {
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async withAdvisoryLock(key, fn) {
      // Session-level, so the lock is held on this one client for as long as fn runs, across its transactions.
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(advisoryLockSql, [key]);
        try {
          return await fn();
        } finally {
          await client.query(advisoryUnlockSql, [key]).catch((err: Error) => (broken = err));
        }
      } finally {
        client.release(broken);
      }
    },
    async close() {
      await listener?.close();
      await pool.end();
    },
  };
}
