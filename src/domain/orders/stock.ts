import type { Queryable } from '../../db/database.ts';

/** Puts an order's reserved stock back (cancelled, rejected or expired before it was placed). */
export async function returnStock(tx: Queryable, tenantId: string, orderId: string): Promise<void> {
  await tx.query(
    `update variants v set stock = v.stock + i.quantity
       from (select variant_id, sum(quantity)::int as quantity from order_items
              where tenant_id = $1 and order_id = $2 group by variant_id) i
      where v.tenant_id = $1 and v.id = i.variant_id`,
    [tenantId, orderId],
  );
}
