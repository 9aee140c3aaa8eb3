/** Promo codes of this service's own table: when one is usable, and the demo codes. */
export interface PromoCode {
  code: string;
  discountBasisPoints: number;
  activeFrom: number;
  activeUntil?: number;
  maxRedemptions?: number;
}

export const normalisePromoCode = (code: string): string => code.trim().toUpperCase();

export function isPromoUsable(promo: PromoCode, now: number, redemptions: number): boolean {
  if (now < promo.activeFrom) return false;
  if (promo.activeUntil !== undefined && now >= promo.activeUntil) return false;
  return promo.maxRedemptions === undefined || redemptions < promo.maxRedemptions;
}

/** Seeded into an empty store by the embedded default, as DESIGN.md section 5 asks. */
export const DEMO_PROMO_CODES: PromoCode[] = [
  { code: 'WELCOME10', discountBasisPoints: 1000, activeFrom: Date.parse('2024-01-01T00:00:00Z') },
  { code: 'SPRING25', discountBasisPoints: 2500, activeFrom: Date.parse('2025-03-01T00:00:00Z'), activeUntil: Date.parse('2025-06-01T00:00:00Z') },
];
