import type { Db } from '../../src/db/database.ts';

export interface BulkOptions {
  /** Id prefix (ids are <prefix>000001…); `bulk` by default. Use another for a second batch. */
  prefix?: string;
  status?: 'succeeded' | 'dead';
  /** A registered endpoint's id; by default the rows target a bare URL. */
  endpointId?: string;
}

/**
 * Fills a sandbox with `count` finished deliveries straight in the database: a fixture for
 * the list's scale (10,000 rows) that sends nothing and schedules nothing.
 */
export async function insertDeliveries(
  db: Db,
  tenantId: string,
  count: number,
  options: BulkOptions = {},
): Promise<void> {
  const { prefix = 'bulk', status = 'succeeded', endpointId = null } = options;
  const body = (n: string) =>
    `jsonb_build_object('topic', 'order.placed', 'deliveryId', 'dlv_${prefix}' || ${n}, 'tenantId', $1::text, 'occurredAt', '2026-01-01T00:00:00.000Z', 'data', jsonb_build_object('orderId', 'ord_0001'))::text`;
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into events (tenant_id, id, topic, occurred_at, data, test)
       select $1, 'evt_${prefix}' || lpad(g::text, 6, '0'), 'order.placed', now(), '{"orderId":"ord_0001"}', true from generate_series(1, $2::int) g`,
      [tenantId, count],
    );
    await tx.query(
      `insert into deliveries (tenant_id, id, event_id, endpoint_id, target_url, topic, status, body, attempt_count, last_status, created_at, updated_at)
       select $1, 'dlv_${prefix}' || lpad(g::text, 6, '0'), 'evt_${prefix}' || lpad(g::text, 6, '0'), $3::text,
              case when $3::text is null then 'http://127.0.0.1:9/bulk' end, 'order.placed',
              $4, ${body("lpad(g::text, 6, '0')")}, 1, case when $4 = 'dead' then 500 else 200 end, now(), now()
         from generate_series(1, $2::int) g`,
      [tenantId, count, endpointId, status],
    );
  });
}
