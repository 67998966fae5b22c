export interface QueryOptions {
  /**
   * A hot statement: the driver may prepare it once and reuse its plan (PGlite: one trip instead
   * of six, in or out of a transaction; PostgreSQL: a named statement outside a transaction, where
   * planning is cheap anyway). A hint a driver may ignore. Only for SQL text that is a constant.
   */
  prepare?: boolean;
}

/** The small query interface the rest of the code sees (plain PostgreSQL underneath). */
export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

/** A transaction: queries run inside it; afterCommit callbacks run once it has committed. */
export interface Tx extends Queryable {
  /** Runs SQL without parameters (several statements allowed). */
  exec(sql: string): Promise<void>;
  /** Runs fn after COMMIT succeeded; never on rollback. */
  afterCommit(fn: () => void): void;
  /** Like PostgreSQL's NOTIFY inside a transaction: delivered at COMMIT, dropped on rollback. */
  notify(channel: string, payload: string): Promise<void>;
}

/** Called with each notification's payload, on every engine listening on the database (this one included). */
export type NotificationHandler = (payload: string) => void;

/** Which adapter is underneath: the in-process PGlite, or a PostgreSQL server through node-postgres. */
type Driver = 'pglite' | 'postgres';

export interface Db extends Queryable {
  readonly driver: Driver;
  /** One transaction on one connection: BEGIN … COMMIT, ROLLBACK when fn throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs SQL without parameters (several statements allowed: the simple protocol). */
  exec(sql: string): Promise<void>;
  /**
   * Subscribes this process to a channel (PostgreSQL LISTEN). Payloads are strings under 8,000 bytes.
   * Resolves once listening; the returned function unsubscribes.
   */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  /**
   * Calls fn whenever notifications may have been missed (the LISTEN connection dropped and came back):
   * whatever a process caches on the strength of notifications should be dropped then.
   */
  onNotificationsMissed(fn: () => void): () => void;
  /**
   * Calls fn when the notification connection is lost (before it is back): caches kept true by
   * notifications must not be trusted until onNotificationsMissed says it is back.
   */
  onNotificationsLost(fn: () => void): () => void;
  /** Sends a notification now (PostgreSQL NOTIFY outside a transaction). */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Runs fn while holding a session-level advisory lock named key: one holder at a time among every
   * engine on this database. fn uses the Db as usual (its queries run on other connections). For
   * start-up work only (migrations, seed): it holds a connection while fn runs, so nothing that awaits
   * the network may run under it. The lock is tried rather than waited for on a connection; after
   * the start-up lock wait (`sessionLockWaitMs`, src/db/timeouts.ts) it fails naming the session holding it.
   */
  withAdvisoryLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Statements this Db has sent since it opened, BEGIN and COMMIT included: on PostgreSQL each is a round
   * trip to the server (a multi-statement exec() is one); on PGlite each is a call into the database.
   */
  roundTrips(): number;
  close(): Promise<void>;
}

/** Runs after-commit callbacks; one that throws is reported and does not stop the others. */
export function runAfterCommit(callbacks: (() => void)[], onError: (err: unknown) => void): void {
  for (const cb of callbacks) {
    try {
      cb();
    } catch (err) {
      onError(err);
    }
  }
}
