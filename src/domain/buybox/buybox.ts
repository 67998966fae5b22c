import type { Queryable, Tx } from '../../db/database.ts';
import { toMajor } from '../../shared/money.ts';
import { notFound } from '../../shared/problem.ts';
import { buyboxWinnerChangedData, type buyboxReasons, type WinnerEventRow } from '../../webhooks/topics/data/buybox.ts';
import type { DomainDeps } from '../deps.ts';
import { eligible, rankOffers, winnerOf, type Candidate } from './rank.ts';

interface CandidateRow {
  offer_id: string;
  vendor_id: string;
  variant_id: string;
  vendor_status: string;
  vendor_standing: number;
  price_minor: number;
  shipping_minor: number;
  stock: number;
  created_at: Date;
}

async function candidates(
  q: Queryable,
  tenantId: string,
  variantIds: string[],
): Promise<Map<string, (Candidate & { variantId: string })[]>> {
  const rows = await q.query<CandidateRow>(
    `select o.id as offer_id, o.vendor_id, o.variant_id, v.status as vendor_status, v.standing as vendor_standing,
            o.price_minor, o.shipping_minor, o.stock, o.created_at
       from vendor_offers o join vendors v on v.tenant_id = o.tenant_id and v.id = o.vendor_id
      where o.tenant_id = $1 and o.variant_id = any($2)`,
    [tenantId, variantIds],
  );
  const byVariant = new Map<string, (Candidate & { variantId: string })[]>(variantIds.map((id) => [id, []]));
  for (const r of rows) {
    byVariant.get(r.variant_id)!.push({
      offerId: r.offer_id,
      vendorId: r.vendor_id,
      variantId: r.variant_id,
      vendorStatus: r.vendor_status,
      vendorStanding: r.vendor_standing,
      priceMinor: r.price_minor,
      shippingMinor: r.shipping_minor,
      stock: r.stock,
      createdAt: r.created_at.toISOString(),
    });
  }
  return byVariant;
}

const asWinnerRow = (c: Candidate): WinnerEventRow => ({
  offer_id: c.offerId,
  vendor_id: c.vendorId,
  price_minor: c.priceMinor,
  shipping_minor: c.shippingMinor,
  stock: c.stock,
});

/**
 * Recomputes the buybox of some variants after an offer or a vendor changed, in the caller's
 * transaction: a different winning offer (or none) emits buybox.winner_changed with the old and
 * new winner. Returns the winners that were replaced, so callers can tell whose buyboxes moved.
 */
export async function recomputeBuybox(
  tx: Tx,
  deps: DomainDeps,
  tenantId: string,
  variantIds: string[],
  reason: (typeof buyboxReasons)[number],
  now: Date,
): Promise<WinnerEventRow[]> {
  if (variantIds.length === 0) return [];
  const current = new Map(
    (
      await tx.query<WinnerEventRow & { variant_id: string }>(
        'select * from buybox_winners where tenant_id = $1 and variant_id = any($2) for update',
        [tenantId, variantIds],
      )
    ).map((w) => [w.variant_id, w]),
  );
  const variants = new Map(
    (
      await tx.query<{ id: string; product_id: string }>(
        'select id, product_id from variants where tenant_id = $1 and id = any($2)',
        [tenantId, variantIds],
      )
    ).map((v) => [v.id, v]),
  );
  const replaced: WinnerEventRow[] = [];
  for (const [variantId, offers] of await candidates(tx, tenantId, variantIds)) {
    const before = current.get(variantId) ?? null;
    const best = winnerOf(offers);
    const after = best ? asWinnerRow(best) : null;
    if (after) {
      await tx.query(
        `insert into buybox_winners (tenant_id, variant_id, offer_id, vendor_id, price_minor, shipping_minor, stock, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (tenant_id, variant_id) do update set offer_id = $3, vendor_id = $4, price_minor = $5, shipping_minor = $6, stock = $7, updated_at = $8`,
        [
          tenantId,
          variantId,
          after.offer_id,
          after.vendor_id,
          after.price_minor,
          after.shipping_minor,
          after.stock,
          now,
        ],
      );
    } else if (before) {
      await tx.query('delete from buybox_winners where tenant_id = $1 and variant_id = $2', [tenantId, variantId]);
    }
    if ((before?.offer_id ?? null) === (after?.offer_id ?? null)) continue;
    if (before) replaced.push(before);
    const variant = variants.get(variantId) ?? { id: variantId, product_id: '' };
    await deps.events.emit(
      tx,
      tenantId,
      'buybox.winner_changed',
      buyboxWinnerChangedData(variant, before, after, reason),
      { occurredAt: now },
    );
  }
  return replaced;
}

/** A variant's buybox: the winner and every offer in buybox order, each marked eligible or not. */
export async function getBuybox(q: Queryable, tenantId: string, variantId: string) {
  const [variant] = await q.query<{ id: string; product_id: string }>(
    'select id, product_id from variants where tenant_id = $1 and id = $2',
    [tenantId, variantId],
  );
  if (!variant) throw notFound('variant');
  const ranked = rankOffers((await candidates(q, tenantId, [variantId])).get(variantId)!);
  const show = (c: Candidate) => ({
    offerId: c.offerId,
    vendorId: c.vendorId,
    price: toMajor(c.priceMinor),
    shippingFee: toMajor(c.shippingMinor),
    landedPrice: toMajor(c.priceMinor + c.shippingMinor),
    stock: c.stock,
    vendorStanding: c.vendorStanding,
    eligible: eligible(c),
  });
  const winner = ranked.find(eligible);
  return {
    variantId,
    productId: variant.product_id,
    currency: 'TRY',
    winner: winner ? show(winner) : null,
    offers: ranked.map(show),
  };
}
