import { toMajor } from '../../shared/money.ts';
import { notFound, illegalTransition } from '../../shared/problem.ts';
import { productUpdatedData, type FieldChange, type ProductEventRow } from '../../webhooks/topics/data/catalog.ts';
import type { DomainDeps } from '../deps.ts';
import { getProduct, lockProduct, type Product } from './products.ts';

export interface ProductPatch {
  name?: string;
  description?: string | null;
  category?: string;
}

export interface VariantPatch {
  name?: string;
  priceMinor?: number;
  stock?: number;
}

/** The fields whose value changes, as product.updated reports them. */
function changesOf(
  before: Record<string, unknown>,
  patch: Record<string, unknown>,
  prefix = '',
  show: (k: string, v: unknown) => unknown = (_, v) => v,
): FieldChange[] {
  return Object.entries(patch)
    .filter(([k, v]) => v !== undefined && before[k] !== v)
    .map(([k, v]) => ({ field: `${prefix}${k}`, previous: show(k, before[k]), current: show(k, v) }));
}

/** Changes name, description or category; emits product.updated with what changed (nothing changed: no event). */
export async function updateProduct(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  patch: ProductPatch,
): Promise<Product> {
  await deps.db.transaction(async (tx) => {
    const p = await lockProduct(tx, tenantId, id);
    if (p.status === 'archived') throw illegalTransition('product', p.status, 'update');
    const changes = changesOf(p as unknown as Record<string, unknown>, patch as Record<string, unknown>);
    if (changes.length === 0) return;
    const now = deps.clock.now(tenantId);
    const [after] = await tx.query<ProductEventRow>(
      `update products set name = coalesce($3, name), description = case when $4::boolean then $5 else description end,
              category = coalesce($6, category), updated_at = $7
        where tenant_id = $1 and id = $2 returning *`,
      [
        tenantId,
        id,
        patch.name ?? null,
        patch.description !== undefined,
        patch.description ?? null,
        patch.category ?? null,
        now,
      ],
    );
    await deps.events.emit(tx, tenantId, 'product.updated', productUpdatedData(after, changes), { occurredAt: now });
  });
  return getProduct(deps.db, tenantId, id);
}

/**
 * Changes a variant's name, price or stock; emits product.updated for its product (fields like
 * variants.var_0001.price).
 */
export async function updateVariant(
  deps: DomainDeps,
  tenantId: string,
  variantId: string,
  patch: VariantPatch,
): Promise<Product> {
  const productId = await deps.db.transaction(async (tx) => {
    const [v] = await tx.query<{ product_id: string; name: string; price_minor: number; stock: number }>(
      'select product_id, name, price_minor, stock from variants where tenant_id = $1 and id = $2',
      [tenantId, variantId],
    );
    if (!v) throw notFound('variant');
    const p = await lockProduct(tx, tenantId, v.product_id);
    if (p.status === 'archived') throw illegalTransition('product', p.status, 'update');
    const before = { name: v.name, price: v.price_minor, stock: v.stock };
    const changes = changesOf(
      before,
      { name: patch.name, price: patch.priceMinor, stock: patch.stock },
      `variants.${variantId}.`,
      (k, x) => (k === 'price' ? toMajor(x as number) : x),
    );
    if (changes.length === 0) return v.product_id;
    const now = deps.clock.now(tenantId);
    await tx.query(
      `update variants set name = coalesce($3, name), price_minor = coalesce($4, price_minor), stock = coalesce($5, stock)
        where tenant_id = $1 and id = $2`,
      [tenantId, variantId, patch.name ?? null, patch.priceMinor ?? null, patch.stock ?? null],
    );
    const [after] = await tx.query<ProductEventRow>(
      'update products set updated_at = $3 where tenant_id = $1 and id = $2 returning *',
      [tenantId, p.id, now],
    );
    await deps.events.emit(tx, tenantId, 'product.updated', productUpdatedData(after, changes), { occurredAt: now });
    return v.product_id;
  });
  return getProduct(deps.db, tenantId, productId);
}
