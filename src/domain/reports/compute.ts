import type { Queryable } from '../../db/database.ts';
import { toMajor } from '../../shared/money.ts';
import type { reportKinds } from '../../webhooks/topics/data/reports.ts';

type Kind = (typeof reportKinds)[number];
type Period = { tenantId: string; since: Date; until: Date };

/** Orders placed in the period: how many, their value, and the split by status. */
async function salesSummary(q: Queryable, p: Period) {
  const rows = await q.query<{ status: string; orders: number; total: number }>(
    `select status, count(*)::int as orders, coalesce(sum(total_minor), 0)::bigint as total from orders
      where tenant_id = $1 and created_at >= $2 and created_at < $3 group by status order by status`,
    [p.tenantId, p.since, p.until],
  );
  const orders = rows.reduce((n, r) => n + r.orders, 0);
  const counted = rows.filter((r) => r.status !== 'cancelled' && r.status !== 'rejected');
  const totalMinor = counted.reduce((n, r) => n + r.total, 0);
  const countedOrders = counted.reduce((n, r) => n + r.orders, 0);
  return {
    orders,
    revenue: toMajor(totalMinor),
    currency: 'TRY',
    averageOrderValue: toMajor(countedOrders ? Math.round(totalMinor / countedOrders) : 0),
    byStatus: Object.fromEntries(rows.map((r) => [r.status, { orders: r.orders, total: toMajor(r.total) }])),
  };
}

/** The ten products sold most (by units) in orders of the period that were not cancelled or rejected. */
async function topProducts(q: Queryable, p: Period) {
  const rows = await q.query<{ product_id: string; name: string; units: number; revenue: number }>(
    `select i.product_id, min(pr.name) as name, sum(i.quantity)::int as units, sum(i.line_total_minor)::bigint as revenue
       from order_items i join orders o on o.tenant_id = i.tenant_id and o.id = i.order_id
       join products pr on pr.tenant_id = i.tenant_id and pr.id = i.product_id
      where i.tenant_id = $1 and o.created_at >= $2 and o.created_at < $3 and o.status not in ('cancelled', 'rejected')
      group by i.product_id order by units desc, revenue desc, i.product_id limit 10`,
    [p.tenantId, p.since, p.until],
  );
  return {
    currency: 'TRY',
    products: rows.map((r) => ({ productId: r.product_id, name: r.name, units: r.units, revenue: toMajor(r.revenue) })),
  };
}

/** Captures and refunds of the period, by card brand. */
async function paymentsSummary(q: Queryable, p: Period) {
  const rows = await q.query<{ brand: string; captures: number; captured: number }>(
    `select coalesce(card_brand, 'unknown') as brand, count(*)::int as captures, sum(amount_minor)::bigint as captured from payments
      where tenant_id = $1 and captured_at >= $2 and captured_at < $3 group by 1 order by 1`,
    [p.tenantId, p.since, p.until],
  );
  const [refunds] = await q.query<{ count: number; total: number }>(
    `select count(*)::int as count, coalesce(sum(amount_minor), 0)::bigint as total from refunds
      where tenant_id = $1 and status = 'succeeded' and created_at >= $2 and created_at < $3`,
    [p.tenantId, p.since, p.until],
  );
  return {
    currency: 'TRY',
    captures: rows.reduce((n, r) => n + r.captures, 0),
    captured: toMajor(rows.reduce((n, r) => n + r.captured, 0)),
    refunds: refunds.count,
    refunded: toMajor(refunds.total),
    byBrand: Object.fromEntries(rows.map((r) => [r.brand, { captures: r.captures, captured: toMajor(r.captured) }])),
  };
}

const computers: Record<Kind, (q: Queryable, p: Period) => Promise<unknown>> = {
  sales_summary: salesSummary,
  top_products: topProducts,
  payments_summary: paymentsSummary,
};

/** A report's result over [since, until) of sandbox time. */
export const computeReport = (q: Queryable, kind: string, period: Period): Promise<unknown> =>
  computers[kind as Kind](q, period);
