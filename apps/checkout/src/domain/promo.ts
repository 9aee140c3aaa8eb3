/** Promo codes of this service's own table: when one is usable, and the demo codes. */
export interface PromoCode {
  code: string;
  discountBasisPoints: number;
  activeFrom: number;
  activeUntil?: number;
  maxRedemptions?: number;
}

export const normalisePromoCode = (code: string): string => code.trim().toUpperCase();

/** How much of a promo code's cap is taken: by paid orders, and by open orders holding it. */
export interface PromoUsage {
  redeemed: number;
  held: number;
}

/** Why a promo code cannot be used now: outside its dates, used up, or its cap held by open orders. */
export type PromoRefusal = 'inactive' | 'used_up' | 'held';

export function promoRefusal(promo: PromoCode, now: number, usage: PromoUsage): PromoRefusal | undefined {
  if (now < promo.activeFrom) return 'inactive';
  if (promo.activeUntil !== undefined && now >= promo.activeUntil) return 'inactive';
  if (promo.maxRedemptions === undefined) return undefined;
  if (usage.redeemed >= promo.maxRedemptions) return 'used_up';
  if (usage.redeemed + usage.held >= promo.maxRedemptions) return 'held';
  return undefined;
}

/** Seeded into an empty store by the embedded default: one active code and one expired. */
export const DEMO_PROMO_CODES: PromoCode[] = [
  { code: 'WELCOME10', discountBasisPoints: 1000, activeFrom: Date.parse('2024-01-01T00:00:00Z') },
  {
    code: 'SPRING25',
    discountBasisPoints: 2500,
    activeFrom: Date.parse('2025-03-01T00:00:00Z'),
    activeUntil: Date.parse('2025-06-01T00:00:00Z'),
  },
];
