import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, money } from './common.ts';

export const buyboxReasons = [
  'offer_created',
  'offer_updated',
  'offer_removed',
  'vendor_suspended',
  'vendor_reinstated',
  'vendor_standing_changed',
] as const;

const Winner = z
  .object({
    offerId: z.string(),
    vendorId: z.string(),
    price: money,
    shippingFee: money,
    landedPrice: money.describe('price + shippingFee: what the buybox compares first'),
    stock: z.number().int(),
  })
  .nullable();

export const BuyboxWinnerChanged = z.object({
  variantId: z.string(),
  productId: z.string(),
  reason: z.enum(buyboxReasons),
  currency,
  previous: Winner.describe('The winner before; null when the variant had none'),
  current: Winner.describe('The winner now; null when no offer is eligible any more'),
});

export interface WinnerEventRow {
  offer_id: string;
  vendor_id: string;
  price_minor: number;
  shipping_minor: number;
  stock: number;
}

const winnerOf = (w: WinnerEventRow | null) =>
  w && {
    offerId: w.offer_id,
    vendorId: w.vendor_id,
    price: toMajor(w.price_minor),
    shippingFee: toMajor(w.shipping_minor),
    landedPrice: toMajor(w.price_minor + w.shipping_minor),
    stock: w.stock,
  };

export const buyboxWinnerChangedData = (
  variant: { id: string; product_id: string },
  previous: WinnerEventRow | null,
  current: WinnerEventRow | null,
  reason: (typeof buyboxReasons)[number],
): z.output<typeof BuyboxWinnerChanged> => ({
  variantId: variant.id,
  productId: variant.product_id,
  reason,
  currency: 'TRY',
  previous: winnerOf(previous),
  current: winnerOf(current),
});
