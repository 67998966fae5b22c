/** An offer as the buybox weighs it. */
export interface Candidate {
  offerId: string;
  vendorId: string;
  vendorStatus: string;
  vendorStanding: number;
  priceMinor: number;
  shippingMinor: number;
  stock: number;
  createdAt: string;
}

/** Only approved vendors' offers with stock can win. */
export const eligible = (c: Candidate) => c.vendorStatus === 'approved' && c.stock > 0;

/**
 * Buybox order: lowest landed price (price + shipping) first, then more stock, then the vendor's
 * better standing; the older offer, then the offer id, settle exact ties so the result is stable.
 */
export function rankOffers<T extends Candidate>(candidates: T[]): T[] {
  return [...candidates].sort(
    (a, b) =>
      Number(eligible(b)) - Number(eligible(a)) ||
      a.priceMinor + a.shippingMinor - (b.priceMinor + b.shippingMinor) ||
      b.stock - a.stock ||
      b.vendorStanding - a.vendorStanding ||
      a.createdAt.localeCompare(b.createdAt) ||
      a.offerId.localeCompare(b.offerId),
  );
}

/** The winning offer among a variant's candidates, or undefined when none is eligible. */
export const winnerOf = <T extends Candidate>(candidates: T[]): T | undefined => rankOffers(candidates).find(eligible);
