import type { Db } from '../db/database.ts';
import type { Topic } from '../shared/topics.ts';
import { notLeasedFor } from './leases.ts';
import { originColumns, resentFromOf, type OriginRow, type QueuedDelivery } from './outbox.ts';

/** A pending delivery as the dispatcher carries it between attempts. */
export interface DeliveryState extends Omit<QueuedDelivery, 'dueAt' | 'leasedAt' | 'attemptedByCaller'> {
  attemptCount: number;
  cycleAttempts: number;
}

interface StateRow extends OriginRow {
  tenant_id?: string;
  id: string;
  endpoint_id: string | null;
  target_url: string | null;
  topic: Topic;
  body: string;
  wire_id: string | null;
  attempt_count: number;
  cycle_attempts: number;
  status: string;
  next_attempt_at: Date | null;
}

const stateSelect = `select tenant_id, id, endpoint_id, target_url, topic, body, wire_id, ${originColumns('')},
  attempt_count, cycle_attempts, status, next_attempt_at from deliveries`;

const toState = (tenantId: string, r: StateRow): DeliveryState => ({
  tenantId,
  id: r.id,
  endpointId: r.endpoint_id,
  targetUrl: r.target_url,
  topic: r.topic,
  body: r.body,
  wireId: r.wire_id,
  signingEndpointId: r.signing_endpoint_id,
  resentFrom: resentFromOf(r),
  attemptCount: r.attempt_count,
  cycleAttempts: r.cycle_attempts,
});

/** Loads a delivery's state from the database (the source of truth). */
export async function loadState(
  db: Db,
  tenantId: string,
  id: string,
): Promise<(DeliveryState & { status: string }) | undefined> {
  const [row] = await db.query<StateRow>(`${stateSelect} where tenant_id = $1 and id = $2`, [tenantId, id]);
  return row && { ...toState(tenantId, row), status: row.status };
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
    `${stateSelect} d where d.tenant_id = $1 and d.endpoint_id in (${ends}) and ${open}
     union all
     ${stateSelect} d where d.tenant_id = $1 and d.endpoint_id is null and ${open}`,
    [tenantId, new Date(Math.min(upTo, earliest.getTime() + windowMs)), ...claimable],
    { prepare: true },
  );
  return rows.map((r) => ({ state: toState(tenantId, r), dueAt: r.next_attempt_at!.getTime() }));
}
