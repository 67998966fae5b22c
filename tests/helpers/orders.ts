import type { RunningSandbox } from '../../src/server/start.ts';

/** A variant's stock on hand, read straight from the engine's database (no catalog route needed). */
export async function stockOf(engine: RunningSandbox, tenantId: string, variantId: string): Promise<number> {
  const [row] = await engine.services.db.query<{ stock: number }>(
    'select stock from variants where tenant_id = $1 and id = $2',
    [tenantId, variantId],
  );
  return row.stock;
}

/** How many orders a sandbox holds, straight from the database. */
export async function orderCount(engine: RunningSandbox, tenantId: string): Promise<number> {
  const [row] = await engine.services.db.query<{ n: number }>(
    'select count(*)::int as n from orders where tenant_id = $1',
    [tenantId],
  );
  return row.n;
}

/** A valid order body to start a variation from. */
export const orderBody = (overrides: Record<string, unknown> = {}) => ({
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Bornova' },
  ...overrides,
});
