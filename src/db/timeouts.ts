/**
 * How long the engine waits on PostgreSQL (docs/team-mode.md, Faults). Every wait is bounded, so a
 * database that is down, restarting or stalled turns into a 503 within the request timeout instead of
 * a hang, and a session that holds locks or sits idle in a transaction cannot hold the others up for
 * ever. Overridable per engine (`sandbay serve --statement-timeout …`, or the SANDBAY_* variables).
 */
export interface PostgresTimeouts {
  /** Opening a connection, or waiting for a free one of the pool (client side). */
  connectMs: number;
  /**
   * The server's statement_timeout. The client gives up on a statement 2 s after it (a stalled server
   * cannot cancel anything), so no request waits longer than this + 2 s on one statement.
   */
  statementMs: number;
  /** The server's lock_timeout: a row or advisory lock another session holds is waited for this long at most. */
  lockMs: number;
  /**
   * The server's idle_in_transaction_session_timeout: an engine stopped mid-transaction releases its locks after this.
   */
  idleInTransactionMs: number;
  /** The start-up lock (migrations, seed): after this, the engine stops waiting and names the session holding it. */
  sessionLockWaitMs: number;
}

export const defaultPostgresTimeouts: PostgresTimeouts = {
  connectMs: 5_000,
  statementMs: 10_000,
  lockMs: 5_000,
  idleInTransactionMs: 30_000,
  sessionLockWaitMs: 120_000,
};
