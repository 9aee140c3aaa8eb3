/**
 * Promo codes of this service's own table: when one is usable, how staff write a new one's terms,
 * and the demo codes.
 */
import { invalidArgument } from '@storefront/errors';
import { instantOption, wholeNumberOption } from '@storefront/lifecycle';
import { ORDER_STATUSES, type OrderStatus } from './order';

export interface PromoCode {
  code: string;
  discountBasisPoints: number;
  activeFrom: number;
  activeUntil?: number;
  maxRedemptions?: number;
  /** The goods (priced, before any discount) an order must reach to use it. */
  minGoodsPence?: number;
  /** Only an account's first order may use it: one with no other order open or paid. */
  firstOrderOnly?: boolean;
  /** How many of an account's orders (open or paid) may use it. */
  usesPerAccount?: number;
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

/** What an account has done that a code's conditions count: its orders open or paid, and those using the code. */
export interface AccountHistory {
  orders: number;
  usesOfCode: number;
}

/** The orders a code's account conditions count: open or paid, whatever happened after (decision 1324). */
export const STATUSES_CONDITIONS_COUNT: OrderStatus[] = ORDER_STATUSES.filter(
  (status) => status !== 'failed' && status !== 'expired' && status !== 'cancelled',
);

/** Why an order cannot use a code it does not meet the conditions of (decision 1324). */
export type ConditionRefusal = 'below_minimum' | 'needs_account' | 'not_first_order' | 'used_by_account';

/**
 * Whether a code counts an account's orders: such a code needs the buyer signed in, since a guest cannot be counted.
 */
export function countsAccountOrders(promo: PromoCode): boolean {
  return promo.firstOrderOnly === true || promo.usesPerAccount !== undefined;
}

/** Why this order cannot use the code; undefined when it meets every condition. */
export function conditionRefusal(
  promo: PromoCode,
  order: { goodsPence: number; accountId?: string },
  history: AccountHistory,
): ConditionRefusal | undefined {
  if (promo.minGoodsPence !== undefined && order.goodsPence < promo.minGoodsPence) return 'below_minimum';
  if (!countsAccountOrders(promo)) return undefined;
  if (order.accountId === undefined) return 'needs_account';
  if (promo.firstOrderOnly && history.orders > 0) return 'not_first_order';
  if (promo.usesPerAccount !== undefined && history.usesOfCode >= promo.usesPerAccount) return 'used_by_account';
  return undefined;
}

/**
 * Thrown inside the store's insertOrder transaction, so nothing is saved, when the order cannot hold its promo code.
 */
export class PromoNotHeld extends Error {
  constructor(
    readonly promo: PromoCode,
    readonly refusal: PromoRefusal | ConditionRefusal,
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

/** Pounds as people write them (`50`, `49.99`, `£75`) as pence, above 0 and at most £100,000. */
export function parseMinimumOrder(text: string): number {
  const match = /^£?(\d{1,6})(?:\.(\d{2}))?$/.exec(text.trim());
  const pence = match ? Number(match[1]) * 100 + Number(match[2] ?? 0) : NaN;
  if (!(pence > 0 && pence <= 10_000_000)) {
    throw invalidArgument(
      `min-order must be an amount in pounds above 0 and at most 100000, e.g. 50 or 49.99; got "${text}"`,
      'invalid_min_order',
    );
  }
  return pence;
}

export function parseUsesPerAccount(text: string): number {
  return wholeNumberOption(text, 'per-account', { min: 1, max: 1000, code: 'invalid_per_account' });
}

/** A new code's terms as people write them; absent dates mean now and no end, an absent cap none. */
export interface PromoTerms {
  code: string;
  discount: string;
  from?: string;
  until?: string;
  maxRedemptions?: string;
  minOrder?: string;
  firstOrderOnly?: boolean;
  usesPerAccount?: string;
}

/** The promo code the terms describe, each bad field refused by name. */
export function parsePromoTerms(terms: PromoTerms, now: number): PromoCode {
  return {
    code: parsePromoCode(terms.code),
    discountBasisPoints: parseDiscountPercent(terms.discount),
    activeFrom: terms.from === undefined ? now : instantOption(terms.from, 'from'),
    activeUntil: terms.until === undefined ? undefined : instantOption(terms.until, 'until'),
    maxRedemptions: terms.maxRedemptions === undefined ? undefined : parseRedemptionCap(terms.maxRedemptions),
    minGoodsPence: terms.minOrder === undefined ? undefined : parseMinimumOrder(terms.minOrder),
    firstOrderOnly: terms.firstOrderOnly === true,
    usesPerAccount: terms.usesPerAccount === undefined ? undefined : parseUsesPerAccount(terms.usesPerAccount),
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
