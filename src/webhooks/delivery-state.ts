import type { Db } from '../db/database.ts';
import { notLeasedFor } from './lease-sql.ts';
import { deliveryColumns, toState, type DeliveryRow } from './delivery-row.ts';
import type { QueuedDelivery } from './outbox.ts';

/** A pending delivery as the dispatcher carries it between attempts. */
export interface DeliveryState extends Omit<QueuedDelivery, 'dueAt' | 'leasedAt' | 'attemptedByCaller'> {
  attemptCount: number;
  cycleAttempts: number;
}

type StateRow = DeliveryRow & { status: string; next_attempt_at: Date | null };

const stateSelect = `select ${deliveryColumns('d')}, d.status, d.next_attempt_at from deliveries d`;

/** Loads a delivery's state from the database (the source of truth). */
export async function loadState(
  db: Db,
  tenantId: string,
  id: string,
): Promise<(DeliveryState & { status: string }) | undefined> {
  const [row] = await db.query<StateRow>(`${stateSelect} where d.tenant_id = $1 and d.id = $2`, [tenantId, id]);
  return row && { ...toState(row), status: row.status };
}

/**
 * The sandbox's pending deliveries due by `upTo` that `claimer` could claim (no one else holds a lease
 * on them), within `windowMs` of the earliest, each with when it is due.
 */
export async function dueStates(
  db: Db,
  tenantId: string,
  upTo: number,
  windowMs: number,
  claimer: { owner: string; settled: boolean },
): Promise<{ state: DeliveryState; dueAt: number }[]> {
  // Target by target, so that each is a short walk of deliveries_due (tenant, endpoint, due time)
  // rather than a pass over every pending delivery of the sandbox: the earliest open delivery of each
  // enabled endpoint (and of the bare test URLs), then what falls within the window of the earliest.
  // Two statements, so that the planner sees how narrow the second one's range is.
  const open = `d.status = 'pending' and d.next_attempt_at <= $2 and ${notLeasedFor('$3', '$4::boolean')}`;
  const claimable = [claimer.owner, claimer.settled];
  const ends = 'select e.id from webhook_endpoints e where e.tenant_id = $1 and e.enabled';
  const [{ earliest }] = await db.query<{ earliest: Date | null }>(
    `select min(at) as earliest from (
       select (select min(d.next_attempt_at) from deliveries d where d.tenant_id = $1 and d.endpoint_id = ends.id and ${open}) as at from (${ends}) ends
       union all
       select min(d.next_attempt_at) from deliveries d where d.tenant_id = $1 and d.endpoint_id is null and ${open}) heads`,
    [tenantId, new Date(upTo), ...claimable],
    { prepare: true },
  );
  if (!earliest) return [];
  const rows = await db.query<StateRow>(
    `${stateSelect} where d.tenant_id = $1 and d.endpoint_id in (${ends}) and ${open}
     union all
     ${stateSelect} where d.tenant_id = $1 and d.endpoint_id is null and ${open}`,
    [tenantId, new Date(Math.min(upTo, earliest.getTime() + windowMs)), ...claimable],
    { prepare: true },
  );
  return rows.map((r) => ({ state: toState(r), dueAt: r.next_attempt_at!.getTime() }));
}

/** Dead-letters pending deliveries — one, or all of an endpoint's — with `error` as their last; returns their ids. */
export function deadLetterPending(
  db: Db,
  tenantId: string,
  which: { id: string } | { endpointId: string },
  error: string,
  now: Date,
): Promise<{ id: string }[]> {
  const [column, value] = 'id' in which ? ['id', which.id] : ['endpoint_id', which.endpointId];
  return db.query<{ id: string }>(
    `update deliveries set status = 'dead', next_attempt_at = null, last_error = $3, updated_at = $4
      where tenant_id = $1 and ${column} = $2 and status = 'pending' returning id`,
    [tenantId, value, error, now],
  );
}
