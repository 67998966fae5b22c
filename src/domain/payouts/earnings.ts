import type { Queryable } from '../../db/database.ts';

// A vendor's part of an order: the lines of its own products.
const vendorLines = `
  select i.order_id, sum(i.line_total_minor)::bigint as vendor_minor
    from order_items i join products pr on pr.tenant_id = i.tenant_id and pr.id = i.product_id
   where i.tenant_id = $1 and pr.vendor_id = $2 group by i.order_id`;

/**
 * What a vendor earned in [periodStart, periodEnd] (whole UTC days): its lines of orders whose
 * payment was captured in the period, and its pro-rata share (rounded down, in minor units) of
 * refunds made in the period.
 */
export async function vendorEarnings(
  q: Queryable,
  tenantId: string,
  vendorId: string,
  periodStart: string,
  periodEnd: string,
) {
  const [row] = await q.query<{ gross: number; orders: number; refunds: number }>(
    `with vl as (${vendorLines}),
          span as (select $3::date::timestamp at time zone 'UTC' as since, ($4::date + 1)::timestamp at time zone 'UTC' as until)
     select
       (select coalesce(sum(vl.vendor_minor), 0)::bigint from payments p join vl on vl.order_id = p.order_id, span
         where p.tenant_id = $1 and p.captured_at >= span.since and p.captured_at < span.until) as gross,
       (select count(*)::int from payments p join vl on vl.order_id = p.order_id, span
         where p.tenant_id = $1 and p.captured_at >= span.since and p.captured_at < span.until) as orders,
       (select coalesce(sum(r.amount_minor * vl.vendor_minor / o.total_minor), 0)::bigint
          from refunds r join payments p on p.tenant_id = r.tenant_id and p.id = r.payment_id
          join orders o on o.tenant_id = p.tenant_id and o.id = p.order_id join vl on vl.order_id = p.order_id, span
         where r.tenant_id = $1 and r.status = 'succeeded' and o.total_minor > 0 and r.created_at >= span.since and r.created_at < span.until) as refunds`,
    [tenantId, vendorId, periodStart, periodEnd],
  );
  return { grossMinor: row.gross, orderCount: row.orders, refundsMinor: row.refunds };
}
