import type { Db } from '../../src/db/database.ts';

/**
 * Fills a sandbox with `count` finished deliveries straight in the database: a fixture for
 * the list's scale (10,000 rows) that sends nothing and schedules nothing.
 */
export async function insertDeliveries(db: Db, tenantId: string, count: number): Promise<void> {
  const body = (n: string) => `jsonb_build_object('topic', 'order.placed', 'deliveryId', 'dlv_bulk' || ${n}, 'tenantId', $1::text, 'occurredAt', '2026-01-01T00:00:00.000Z', 'data', jsonb_build_object('orderId', 'ord_0001'))::text`;
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into events (tenant_id, id, topic, occurred_at, data, test)
       select $1, 'evt_bulk' || lpad(g::text, 6, '0'), 'order.placed', now(), '{"orderId":"ord_0001"}', true from generate_series(1, $2::int) g`,
      [tenantId, count],
    );
    await tx.query(
      `insert into deliveries (tenant_id, id, event_id, endpoint_id, target_url, topic, status, body, attempt_count, last_status, created_at, updated_at)
       select $1, 'dlv_bulk' || lpad(g::text, 6, '0'), 'evt_bulk' || lpad(g::text, 6, '0'), null, 'http://127.0.0.1:9/bulk', 'order.placed',
              'succeeded', ${body("lpad(g::text, 6, '0')")}, 1, 200, now(), now()
         from generate_series(1, $2::int) g`,
      [tenantId, count],
    );
  });
}
