import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import { cancelReasons, orderCancelledData, orderPlacedData } from '../../webhooks/topics/data/orders.ts';
import { approvalPolicyFor, openApprovalRequest } from '../b2b/approval-policy.ts';
import type { CommerceDeps } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';
import { returnStock } from './stock.ts';

export interface NewOrder {
  customerId: string;
  items: { variantId: string; quantity: number }[];
  shippingAddress: { city: string; district: string };
}

export interface Order {
  id: string;
  status: string;
  customerId: string;
  items: {
    variantId: string;
    productId: string;
    name: string;
    quantity: number;
    unitPrice: number;
    lineTotal: number;
  }[];
  total: number;
  currency: string;
  shippingAddress: { city: string; district: string };
  createdAt: string;
}

// Orders carry their API representation (`doc`, kept by triggers in migration 003), so a read
// is one primary-key lookup of one column (DESIGN.md, hot paths).

/** The order as the API's JSON text, ready to send. */
export async function getOrderJson(q: Queryable, tenantId: string, id: string): Promise<string> {
  // The API's hottest read: prepared once, one trip into Postgres per request.
  const [row] = await q.query<{ doc: string }>(
    'select doc from orders where tenant_id = $1 and id = $2',
    [tenantId, id],
    { prepare: true },
  );
  if (!row) throw notFound('order');
  return row.doc;
}

async function getOrder(q: Queryable, tenantId: string, id: string): Promise<Order> {
  return JSON.parse(await getOrderJson(q, tenantId, id)) as Order;
}

export async function listOrders(
  q: Queryable,
  tenantId: string,
  opts: { limit: number; after?: { key: string | number; id: string }; status?: string; customerId?: string },
): Promise<Order[]> {
  const rows = await q.query<{ doc: string }>(
    `select doc from orders where tenant_id = $1
        and ($3::timestamptz is null or (created_at, id) < ($3, $4))
        and ($5::text is null or status = $5) and ($6::text is null or customer_id = $6)
      order by created_at desc, id desc limit $2`,
    [
      tenantId,
      opts.limit,
      opts.after?.key ?? null,
      opts.after?.id ?? null,
      opts.status ?? null,
      opts.customerId ?? null,
    ],
  );
  return rows.map((r) => JSON.parse(r.doc) as Order);
}

export interface PlaceOptions {
  /** Negotiated unit prices (a converted quote) instead of the catalog's, by variant id. */
  unitPriceMinor?: Map<string, number>;
}

/**
 * Places an order: prices come from the catalog, stock is reserved, and the order, its items
 * and its event (order.placed, or approval.request.created when a B2B buyer needs approval)
 * commit together.
 */
export async function createOrder(deps: CommerceDeps, tenantId: string, input: NewOrder): Promise<Order> {
  const { id } = await deps.db.transaction((tx) => placeOrder(tx, deps, tenantId, input));
  return getOrder(deps.db, tenantId, id);
}

/**
 * The order as part of a larger transaction (a quote conversion places one). A B2B buyer's
 * order above the company's threshold waits in pending_approval (approval.request.created)
 * instead of being placed (order.placed).
 */
export async function placeOrder(
  tx: Tx,
  deps: CommerceDeps,
  tenantId: string,
  input: NewOrder,
  options: PlaceOptions = {},
): Promise<{ id: string; status: string }> {
  const id = newId('ord');
  const now = deps.clock.now(tenantId);
  const [customer] = await tx.query('select 1 from customers where tenant_id = $1 and id = $2', [
    tenantId,
    input.customerId,
  ]);
  if (!customer)
    throw unknownReference('customer_not_found', '/customerId', `No customer ${input.customerId} in this sandbox.`);
  const variantIds = [...new Set(input.items.map((i) => i.variantId))];
  const variants = await tx.query<{
    id: string;
    product_id: string;
    name: string;
    product_name: string;
    product_status: string;
    price_minor: number;
    stock: number;
  }>(
    `select v.id, v.product_id, v.name, p.name as product_name, p.status as product_status, v.price_minor, v.stock
       from variants v join products p on p.tenant_id = v.tenant_id and p.id = v.product_id
      where v.tenant_id = $1 and v.id = any($2) for update of v`,
    [tenantId, variantIds],
  );
  const byId = new Map(variants.map((v) => [v.id, v]));
  const wanted = new Map<string, number>();
  input.items.forEach((item, i) => {
    const v = byId.get(item.variantId);
    if (!v)
      throw unknownReference(
        'variant_not_found',
        `/items/${i}/variantId`,
        `No variant ${item.variantId} in this sandbox.`,
      );
    if (v.product_status !== 'published') {
      throw unknownReference(
        'product_not_available',
        `/items/${i}/variantId`,
        `Variant ${item.variantId} belongs to a ${v.product_status} product, which cannot be ordered.`,
      );
    }
    wanted.set(v.id, (wanted.get(v.id) ?? 0) + item.quantity);
  });
  for (const [variantId, quantity] of wanted) {
    if (byId.get(variantId)!.stock < quantity) {
      const index = input.items.findIndex((i) => i.variantId === variantId);
      throw new ApiError(
        422,
        'insufficient_stock',
        `Variant ${variantId} has ${byId.get(variantId)!.stock} in stock; ${quantity} requested.`,
        {
          errors: [{ path: `/items/${index}/quantity`, message: 'More than the stock on hand.' }],
        },
      );
    }
  }
  const lines = input.items.map((item, position) => {
    const v = byId.get(item.variantId)!;
    const unitPrice = options.unitPriceMinor?.get(v.id) ?? v.price_minor;
    return { position, variant: v, quantity: item.quantity, unitPrice, lineTotal: unitPrice * item.quantity };
  });
  const total = lines.reduce((sum, l) => sum + l.lineTotal, 0);
  const policy = await approvalPolicyFor(tx, tenantId, input.customerId);
  const status = policy && total > policy.thresholdMinor ? 'pending_approval' : 'placed';
  await tx.query(
    `insert into orders (tenant_id, id, customer_id, status, total_minor, currency, city, district, created_at, updated_at)
     values ($1, $2, $3, $4, $5, 'TRY', $6, $7, $8, $8)`,
    [tenantId, id, input.customerId, status, total, input.shippingAddress.city, input.shippingAddress.district, now],
  );
  const params: unknown[] = [tenantId, id];
  const values = lines.map((l) => {
    params.push(
      l.position,
      l.variant.id,
      l.variant.product_id,
      `${l.variant.product_name} (${l.variant.name})`,
      l.quantity,
      l.unitPrice,
      l.lineTotal,
    );
    const n = params.length;
    return `($1, $2, ${[6, 5, 4, 3, 2, 1, 0].map((k) => `$${n - k}`).join(', ')})`;
  });
  await tx.query(
    `insert into order_items (tenant_id, order_id, position, variant_id, product_id, name, quantity, unit_price_minor, line_total_minor)
     values ${values.join(', ')}`,
    params,
  );
  await tx.query(
    `update variants v set stock = v.stock - w.qty from unnest($2::text[], $3::int[]) as w(id, qty)
      where v.tenant_id = $1 and v.id = w.id`,
    [tenantId, [...wanted.keys()], [...wanted.values()]],
  );
  const order = { id, total_minor: total, currency: 'TRY', customer_id: input.customerId };
  if (status === 'pending_approval') await openApprovalRequest(tx, deps, tenantId, order, policy!, now);
  else await deps.events.emit(tx, tenantId, 'order.placed', orderPlacedData(order), { occurredAt: now });
  return { id, status };
}

const cancellable = new Set(['placed', 'pending_approval']);

/** Cancels an order that has not been paid, returning its stock. */
export async function cancelOrder(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  reason?: (typeof cancelReasons)[number],
): Promise<Order> {
  await deps.db.transaction(async (tx) => {
    const [order] = await tx.query<{ status: string; total_minor: number; currency: string; customer_id: string }>(
      'select status, total_minor, currency, customer_id from orders where tenant_id = $1 and id = $2 for update',
      [tenantId, id],
    );
    if (!order) throw notFound('order');
    if (!cancellable.has(order.status)) throw illegalTransition('order', order.status, 'cancel');
    const now = deps.clock.now(tenantId);
    await tx.query(
      `update orders set status = 'cancelled', cancelled_at = $3, updated_at = $3 where tenant_id = $1 and id = $2`,
      [tenantId, id, now],
    );
    // A buyer withdrawing an order that waits for approval withdraws the request too.
    await tx.query(
      `update approval_requests set status = 'cancelled', decided_at = $3, updated_at = $3
        where tenant_id = $1 and order_id = $2 and status = 'pending'`,
      [tenantId, id, now],
    );
    await returnStock(tx, tenantId, id);
    await deps.events.emit(
      tx,
      tenantId,
      'order.cancelled',
      orderCancelledData({ id, ...order }, reason ?? 'requested_by_customer'),
      { occurredAt: now },
    );
  });
  return getOrder(deps.db, tenantId, id);
}
