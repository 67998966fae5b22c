import type { Queryable } from '../db/database.ts';
import { awaitHorizon, belowHorizon } from '../db/horizon.ts';
import type { ListPosition } from './deliveries.ts';
import { notFound } from '../shared/problem.ts';

export interface EventSummary {
  id: string;
  topic: string;
  occurredAt: string;
  data: unknown;
  deliveryCount: number;
  test: boolean;
}

interface Row {
  id: string; topic: string; occurred_at: Date; data: unknown; delivery_count: number; test: boolean; seq: number; xid: string;
}

const select = `
  select e.id, e.topic, e.occurred_at, e.data, e.test, e.seq, e.xid::text as xid,
         (select count(*)::int from deliveries d where d.tenant_id = e.tenant_id and d.event_id = e.id) as delivery_count
    from events e`;

const toEvent = (r: Row) => ({
  id: r.id, topic: r.topic, occurredAt: r.occurred_at.toISOString(), data: r.data, deliveryCount: r.delivery_count, test: r.test, seq: r.seq, xid: r.xid,
});

/**
 * The sandbox's events, newest first, as Stripe users expect them (SPEC §5.7): by inserting transaction,
 * then insertion order, only those below the commit horizon (src/db/horizon.ts).
 */
export async function listEvents(q: Queryable, tenantId: string, opts: { limit: number; after?: ListPosition; topic?: string }) {
  await awaitHorizon(q, 'events', tenantId);
  const rows = await q.query<Row>(
    `${select} where e.tenant_id = $1 and ${belowHorizon('e')} and ($3::bigint is null or (e.xid, e.seq) < ($5::xid8, $3::bigint))
        and ($4::text is null or e.topic = $4)
      order by e.xid desc, e.seq desc limit $2`,
    [tenantId, opts.limit, opts.after?.seq ?? null, opts.topic ?? null, opts.after?.xid ?? null],
  );
  return rows.map(toEvent);
}

export async function getEvent(q: Queryable, tenantId: string, id: string): Promise<EventSummary> {
  const [row] = await q.query<Row>(`${select} where e.tenant_id = $1 and e.id = $2`, [tenantId, id]);
  if (!row) throw notFound('event');
  const { seq: _seq, xid: _xid, ...event } = toEvent(row);
  return event;
}
