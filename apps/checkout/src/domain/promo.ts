/**
 * Promo codes of this service's own table: when one is usable, how staff write a new one's terms,
 * and the demo codes.
 */
import { invalidArgument } from '@storefront/errors';
import { instantOption, wholeNumberOption } from '@storefront/lifecycle';

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

/** Thrown inside the store's insertOrder transaction, so nothing is saved, when the order cannot hold its promo code. */
export class PromoNotHeld extends Error {
  constructor(
    readonly promo: PromoCode,
    readonly refusal: PromoRefusal,
  ) {
    super(`promo code ${promo.code} cannot be held: ${refusal}`);
  }
}

export const PROMO_CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{2,63}$/;
const BASIS_POINTS_PER_PERCENT = 100;

export interface PromoListing extends PromoCode {
  redeemed: number;
  held: number;
  /** Why a checkout would refuse it now; undefined when it is usable. */
  refusal?: PromoRefusal;
}

/** `WELCOME10`-style codes: letters, digits, `-` and `_`, 3 to 64 characters, stored upper-case. */
export function parsePromoCode(text: string): string {
  const code = normalisePromoCode(text);
  if (!PROMO_CODE_PATTERN.test(code))
    throw invalidArgument(
      `code must be 3 to 64 letters, digits, "-" or "_", starting with a letter or digit; got "${text}"`,
      'invalid_code',
    );
  return code;
}

/** A percentage (`15`, `15%`, `12.5%`) as basis points, more than 0 and at most 100%. */
export function parseDiscountPercent(text: string): number {
  const match = /^(\d{1,3}(?:\.\d{1,2})?)%?$/.exec(text.trim());
  const basisPoints = match ? Math.round(Number(match[1]) * BASIS_POINTS_PER_PERCENT) : NaN;
  if (!(basisPoints > 0 && basisPoints <= 100 * BASIS_POINTS_PER_PERCENT)) {
    throw invalidArgument(
      `discount must be a percentage above 0 and at most 100 (e.g. 15 or 12.5%), got "${text}"`,
      'invalid_discount',
    );
  }
  return basisPoints;
}

export function parseRedemptionCap(text: string): number {
  return wholeNumberOption(text, 'max-redemptions', { min: 1, max: 1_000_000, code: 'invalid_cap' });
}

/** A new code's terms as people write them; absent dates mean now and no end, an absent cap none. */
export interface PromoTerms {
  code: string;
  discount: string;
  from?: string;
  until?: string;
  maxRedemptions?: string;
}

/** The promo code the terms describe, each bad field refused by name. */
export function parsePromoTerms(terms: PromoTerms, now: number): PromoCode {
  return {
    code: parsePromoCode(terms.code),
    discountBasisPoints: parseDiscountPercent(terms.discount),
    activeFrom: terms.from === undefined ? now : instantOption(terms.from, 'from'),
    activeUntil: terms.until === undefined ? undefined : instantOption(terms.until, 'until'),
    maxRedemptions: terms.maxRedemptions === undefined ? undefined : parseRedemptionCap(terms.maxRedemptions),
  };
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
