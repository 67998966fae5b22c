import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import { recomputeBuybox } from '../buybox/buybox.ts';
import { keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';

export interface NewOffer {
  variantId: string;
  priceMinor: number;
  shippingMinor: number;
  stock: number;
}

interface OfferRow {
  id: string;
  vendor_id: string;
  variant_id: string;
  price_minor: number;
  shipping_minor: number;
  stock: number;
  created_at: Date;
  updated_at: Date;
  winning: boolean;
}

const select = `
  select o.*, exists (select 1 from buybox_winners w where w.tenant_id = o.tenant_id and w.variant_id = o.variant_id and w.offer_id = o.id) as winning
    from vendor_offers o`;

const toOffer = (o: OfferRow) => ({
  id: o.id,
  vendorId: o.vendor_id,
  variantId: o.variant_id,
  price: toMajor(o.price_minor),
  shippingFee: toMajor(o.shipping_minor),
  landedPrice: toMajor(o.price_minor + o.shipping_minor),
  stock: o.stock,
  currency: 'TRY',
  winsBuybox: o.winning,
  createdAt: o.created_at.toISOString(),
  updatedAt: o.updated_at.toISOString(),
});

export type Offer = ReturnType<typeof toOffer>;

/** One offer, with whether it wins its buybox. */
export async function getOffer(q: Queryable, tenantId: string, id: string): Promise<Offer> {
  const [row] = await q.query<OfferRow>(`${select} where o.tenant_id = $1 and o.id = $2`, [tenantId, id]);
  if (!row) throw notFound('offer');
  return toOffer(row);
}

/** Offers, newest first, by vendor or variant. */
export async function listOffers(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { vendorId?: string; variantId?: string },
): Promise<Offer[]> {
  const k = keyset('o', 5);
  const rows = await q.query<OfferRow>(
    `${select} where o.tenant_id = $1 and ($3::text is null or o.vendor_id = $3) and ($4::text is null or o.variant_id = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.vendorId ?? null, page.variantId ?? null, ...keysetParams(page)],
  );
  return rows.map(toOffer);
}

/** An approved vendor offers a variant at its price, shipping fee and stock; the variant's buybox is recomputed. */
export async function createOffer(
  deps: DomainDeps,
  tenantId: string,
  vendorId: string,
  input: NewOffer,
): Promise<Offer> {
  const id = newId('ofr');
  await deps.db.transaction(async (tx) => {
    const [vendor] = await tx.query<{ status: string }>(
      'select status from vendors where tenant_id = $1 and id = $2 for update',
      [tenantId, vendorId],
    );
    if (!vendor) throw notFound('vendor');
    if (vendor.status !== 'approved') throw illegalTransition('vendor', vendor.status, 'add an offer for');
    const [variant] = await tx.query('select 1 from variants where tenant_id = $1 and id = $2', [
      tenantId,
      input.variantId,
    ]);
    if (!variant)
      throw unknownReference('variant_not_found', '/variantId', `No variant ${input.variantId} in this sandbox.`);
    const [existing] = await tx.query<{ id: string }>(
      'select id from vendor_offers where tenant_id = $1 and vendor_id = $2 and variant_id = $3',
      [tenantId, vendorId, input.variantId],
    );
    if (existing) {
      throw new ApiError(
        409,
        'offer_exists',
        `This vendor already offers ${input.variantId} (${existing.id}); update that offer instead.`,
        { extra: { offerId: existing.id } },
      );
    }
    const now = deps.clock.now(tenantId);
    await tx.query(
      `insert into vendor_offers (tenant_id, id, vendor_id, variant_id, price_minor, shipping_minor, stock, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [tenantId, id, vendorId, input.variantId, input.priceMinor, input.shippingMinor, input.stock, now],
    );
    await recomputeBuybox(tx, deps, tenantId, [input.variantId], 'offer_created', now);
  });
  return getOffer(deps.db, tenantId, id);
}

async function lockOffer(tx: Tx, tenantId: string, id: string): Promise<{ variant_id: string }> {
  const [row] = await tx.query<{ variant_id: string }>(
    'select variant_id from vendor_offers where tenant_id = $1 and id = $2 for update',
    [tenantId, id],
  );
  if (!row) throw notFound('offer');
  return row;
}

/** Changes an offer's price, shipping fee or stock; the variant's buybox is recomputed. */
export async function updateOffer(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  patch: Partial<Omit<NewOffer, 'variantId'>>,
): Promise<Offer> {
  await deps.db.transaction(async (tx) => {
    const offer = await lockOffer(tx, tenantId, id);
    const now = deps.clock.now(tenantId);
    await tx.query(
      `update vendor_offers set price_minor = coalesce($3, price_minor), shipping_minor = coalesce($4, shipping_minor), stock = coalesce($5, stock), updated_at = $6
        where tenant_id = $1 and id = $2`,
      [tenantId, id, patch.priceMinor ?? null, patch.shippingMinor ?? null, patch.stock ?? null, now],
    );
    await recomputeBuybox(tx, deps, tenantId, [offer.variant_id], 'offer_updated', now);
  });
  return getOffer(deps.db, tenantId, id);
}

/** Withdraws an offer; the variant's buybox is recomputed. */
export async function deleteOffer(deps: DomainDeps, tenantId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const offer = await lockOffer(tx, tenantId, id);
    await tx.query('delete from vendor_offers where tenant_id = $1 and id = $2', [tenantId, id]);
    await recomputeBuybox(tx, deps, tenantId, [offer.variant_id], 'offer_removed', deps.clock.now(tenantId));
  });
}
