import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import {
  productArchivedData,
  productCreatedData,
  productPublishedData,
  type ProductEventRow,
  type VariantEventRow,
} from '../../webhooks/topics/data/catalog.ts';
import { iso, keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';

interface NewVariant {
  sku: string;
  name: string;
  priceMinor: number;
  stock: number;
}

export interface NewProduct {
  name: string;
  description?: string;
  category: string;
  vendorId?: string;
  variants: NewVariant[];
}

interface ProductRow extends ProductEventRow {
  description: string | null;
  updated_at: Date;
  variants: { id: string; sku: string; name: string; price: number; stock: number }[] | null;
}

// One query per read: the product with its variants aggregated.
const select = `
  select p.*, (select json_agg(json_build_object('id', v.id, 'sku', v.sku, 'name', v.name, 'price', v.price_minor, 'stock', v.stock) order by v.id)
                 from variants v where v.tenant_id = p.tenant_id and v.product_id = p.id) as variants
    from products p`;

const toProduct = (p: ProductRow) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  category: p.category,
  status: p.status,
  vendorId: p.vendor_id,
  currency: 'TRY',
  variants: (p.variants ?? []).map((v) => ({ ...v, price: toMajor(v.price) })),
  createdAt: p.created_at.toISOString(),
  updatedAt: p.updated_at.toISOString(),
  publishedAt: iso(p.published_at),
  archivedAt: iso(p.archived_at),
});

export type Product = ReturnType<typeof toProduct>;

/** One product with its variants. */
export async function getProduct(q: Queryable, tenantId: string, id: string): Promise<Product> {
  const [row] = await q.query<ProductRow>(`${select} where p.tenant_id = $1 and p.id = $2`, [tenantId, id]);
  if (!row) throw notFound('product');
  return toProduct(row);
}

/** Products with their variants, newest first, by status, category or vendor. */
export async function listProducts(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { status?: string; category?: string; vendorId?: string },
): Promise<Product[]> {
  const k = keyset('p', 6);
  const rows = await q.query<ProductRow>(
    `${select} where p.tenant_id = $1 and ($3::text is null or p.status = $3) and ($4::text is null or p.category = $4)
        and ($5::text is null or p.vendor_id = $5) and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.status ?? null, page.category ?? null, page.vendorId ?? null, ...keysetParams(page)],
  );
  return rows.map(toProduct);
}

/** SKUs are unique per sandbox, across the request and what exists. */
async function checkSkus(tx: Tx, tenantId: string, variants: NewVariant[]): Promise<void> {
  const taken = new Set(
    (
      await tx.query<{ sku: string }>('select sku from variants where tenant_id = $1 and sku = any($2)', [
        tenantId,
        variants.map((v) => v.sku),
      ])
    ).map((r) => r.sku),
  );
  const seen = new Set<string>();
  variants.forEach((v, i) => {
    if (taken.has(v.sku) || seen.has(v.sku)) {
      throw new ApiError(409, 'sku_taken', `SKU ${v.sku} is already used in this sandbox.`, {
        errors: [{ path: `/variants/${i}/sku`, message: 'SKU already in use.' }],
      });
    }
    seen.add(v.sku);
  });
}

/** Creates a draft product with its variants; emits product.created. Publish it to make it orderable. */
export async function createProduct(deps: DomainDeps, tenantId: string, input: NewProduct): Promise<Product> {
  const id = newId('prd');
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now(tenantId);
    if (input.vendorId) {
      const [vendor] = await tx.query('select 1 from vendors where tenant_id = $1 and id = $2', [
        tenantId,
        input.vendorId,
      ]);
      if (!vendor)
        throw unknownReference('vendor_not_found', '/vendorId', `No vendor ${input.vendorId} in this sandbox.`);
    }
    await checkSkus(tx, tenantId, input.variants);
    const [product] = await tx.query<ProductEventRow>(
      `insert into products (tenant_id, id, name, description, category, status, vendor_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 'draft', $6, $7, $7) returning *`,
      [tenantId, id, input.name, input.description ?? null, input.category, input.vendorId ?? null, now],
    );
    const variants = await tx.query<VariantEventRow>(
      `insert into variants (tenant_id, id, product_id, sku, name, price_minor, stock, created_at)
       select $1, v.id, $2, v.sku, v.name, v.price, v.stock, $3
         from unnest($4::text[], $5::text[], $6::text[], $7::bigint[], $8::int[]) with ordinality as v(id, sku, name, price, stock, n)
        order by v.n returning *`,
      [
        tenantId,
        id,
        now,
        input.variants.map(() => newId('var')),
        input.variants.map((v) => v.sku),
        input.variants.map((v) => v.name),
        input.variants.map((v) => v.priceMinor),
        input.variants.map((v) => v.stock),
      ],
    );
    await deps.events.emit(tx, tenantId, 'product.created', productCreatedData(product, variants), { occurredAt: now });
  });
  return getProduct(deps.db, tenantId, id);
}

/** Locks a product for a change; archived products are read-only. */
export async function lockProduct(
  tx: Tx,
  tenantId: string,
  id: string,
): Promise<ProductEventRow & { description: string | null }> {
  const [row] = await tx.query<ProductEventRow & { description: string | null }>(
    'select * from products where tenant_id = $1 and id = $2 for update',
    [tenantId, id],
  );
  if (!row) throw notFound('product');
  return row;
}

/** draft or archived → published; emits product.published. A product needs a variant to be sold. */
export async function publishProduct(deps: DomainDeps, tenantId: string, id: string): Promise<Product> {
  await deps.db.transaction(async (tx) => {
    const p = await lockProduct(tx, tenantId, id);
    if (p.status === 'published') throw illegalTransition('product', p.status, 'publish');
    const [{ count }] = await tx.query<{ count: number }>(
      'select count(*)::int as count from variants where tenant_id = $1 and product_id = $2',
      [tenantId, id],
    );
    if (count === 0)
      throw new ApiError(409, 'product_has_no_variants', 'Add a variant before publishing this product.');
    const now = deps.clock.now(tenantId);
    const [after] = await tx.query<ProductEventRow>(
      `update products set status = 'published', published_at = $3, archived_at = null, updated_at = $3 where tenant_id = $1 and id = $2 returning *`,
      [tenantId, id, now],
    );
    await deps.events.emit(tx, tenantId, 'product.published', productPublishedData(after, p.status as 'draft', count), {
      occurredAt: now,
    });
  });
  return getProduct(deps.db, tenantId, id);
}

/** draft or published → archived; emits product.archived. Archived products cannot be ordered or edited. */
export async function archiveProduct(deps: DomainDeps, tenantId: string, id: string): Promise<Product> {
  await deps.db.transaction(async (tx) => {
    const p = await lockProduct(tx, tenantId, id);
    if (p.status === 'archived') throw illegalTransition('product', p.status, 'archive');
    const now = deps.clock.now(tenantId);
    const [after] = await tx.query<ProductEventRow>(
      `update products set status = 'archived', archived_at = $3, updated_at = $3 where tenant_id = $1 and id = $2 returning *`,
      [tenantId, id, now],
    );
    await deps.events.emit(tx, tenantId, 'product.archived', productArchivedData(after, p.status as 'draft'), {
      occurredAt: now,
    });
  });
  return getProduct(deps.db, tenantId, id);
}
