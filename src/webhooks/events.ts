import type { Queryable } from '../db/database.ts';
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
  id: string;
  topic: string;
  occurred_at: Date;
  data: unknown;
  delivery_count: number;
  test: boolean;
  seq: number;
  position: number;
}

const select = `
  select e.id, e.topic, e.occurred_at, e.data, e.test, e.seq, c.position,
         (select count(*)::int from deliveries d where d.tenant_id = e.tenant_id and d.event_id = e.id) as delivery_count
    from events e
    join list_commits c on c.tenant_id = e.tenant_id and c.xid = e.xid`;

const toEvent = (r: Row) => ({
  id: r.id,
  topic: r.topic,
  occurredAt: r.occurred_at.toISOString(),
  data: r.data,
  deliveryCount: r.delivery_count,
  test: r.test,
  seq: r.seq,
  position: r.position,
});

/**
 * The sandbox's events, newest first, as Stripe users expect them (SPEC §5.7): by commit, then insertion
 * order (./deliveries.ts ListPosition), so a forward poll never skips one that committed late.
 */
export async function listEvents(
  q: Queryable,
  tenantId: string,
  opts: { limit: number; after?: ListPosition; topic?: string },
) {
  const rows = await q.query<Row>(
    `${select} where e.tenant_id = $1 and ($3::bigint is null or (c.position, e.seq) < ($5::bigint, $3::bigint))
        and ($4::text is null or e.topic = $4)
      order by c.position desc, e.seq desc limit $2`,
    [tenantId, opts.limit, opts.after?.seq ?? null, opts.topic ?? null, opts.after?.position ?? null],
  );
  return rows.map(toEvent);
}

export async function getEvent(q: Queryable, tenantId: string, id: string): Promise<EventSummary> {
  const [row] = await q.query<Row>(`${select} where e.tenant_id = $1 and e.id = $2`, [tenantId, id]);
  if (!row) throw notFound('event');
  const { seq: _seq, position: _position, ...event } = toEvent(row);
  return event;
}
