import type { Queryable } from '../../src/db/database.ts';
import type { SoakSandbox } from './load.ts';

/** Where every delivery the ledger sandboxes emitted ended up, counted in the database. */
export interface Ledger {
  /** Orders acknowledged as placed × the two endpoints subscribed to order.placed. */
  emitted: number;
  succeeded: number;
  pending: number;
  dead: number;
  /** Rows in another status, or none where one was due. */
  lost: number;
  /** Attempts made for them: more than there are deliveries once retries ran. */
  attempts: number;
  /** Deliveries beyond those acknowledged (an order whose answer the client never got). */
  unacknowledged: number;
}

export const endpointsPerSandbox = 2;

/** Counts the ledger sandboxes' deliveries by status (never reset, never pruned during the soak). */
export async function countLedger(db: Queryable, sandboxes: SoakSandbox[]): Promise<Ledger> {
  const ledger = sandboxes.filter((s) => s.ledger);
  const rows = await db.query<{ status: string; n: number; attempts: number }>(
    `select status, count(*)::int as n, sum(attempt_count)::int as attempts from deliveries where tenant_id = any($1) and topic = 'order.placed' group by status`,
    [ledger.map((s) => s.id)],
  );
  const by = (status: string) => rows.find((r) => r.status === status)?.n ?? 0;
  const emitted = ledger.reduce((n, s) => n + s.placed * endpointsPerSandbox, 0);
  const [succeeded, pending, dead] = [by('succeeded'), by('pending'), by('dead')];
  const other = rows.filter((r) => !['succeeded', 'pending', 'dead'].includes(r.status)).reduce((n, r) => n + r.n, 0);
  const found = succeeded + pending + dead;
  const attempts = rows.reduce((n, r) => n + r.attempts, 0);
  return {
    emitted,
    succeeded,
    pending,
    dead,
    attempts,
    lost: other + Math.max(0, emitted - found),
    unacknowledged: Math.max(0, found - emitted),
  };
}

/** Finished deliveries so far (for deliveries per second). */
export async function finishedDeliveries(db: Queryable, sandboxes: SoakSandbox[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from deliveries where tenant_id = any($1) and status <> 'pending'`,
    [sandboxes.filter((s) => s.ledger).map((s) => s.id)],
  );
  return row.n;
}
