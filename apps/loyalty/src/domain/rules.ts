/**
 * Loyalty rules as pure functions: what a purchase earns, which tier lifetime points reach and
 * what it earns at, which sync requests become redemptions, the shape of reward codes and of
 * valid input.
 */
import { invalidArgument } from '@storefront/errors';
import {
  CATALOG_ID_MAX_LENGTH,
  LOYALTY_TIERS,
  LOYALTY_WELCOME,
  ORDER_REFERENCE_MAX_LENGTH,
  hasControlCharacters,
  randomCode,
} from '@storefront/formats';

export const WELCOME_BONUS = LOYALTY_WELCOME.points;

/** Something points buy: a discount on one later order. */
export interface Reward {
  id: string;
  name: string;
  pointsCost: number;
  /** Basis points: 1000 means 10% off. */
  discountBps: number;
}

export interface HistoryEntry {
  id: string;
  type: EntryType;
  /** Signed: negative for redemptions. */
  points: number;
  description: string;
  /** ISO 8601. */
  createdAt: string;
  orderId?: string;
}

/** A reward bought with points: its single-use code. */
export interface RedeemedReward {
  id: string;
  rewardId: string;
  name: string;
  code: string;
  /** ISO 8601, as is usedAt. */
  redeemedAt: string;
  usedAt?: string;
}

/** An account as its customer sees it. */
export interface Account extends TierStanding {
  points: number;
  lifetimePoints: number;
  pointsHistory: HistoryEntry[];
  availableRewards: Reward[];
  redeemedRewards: RedeemedReward[];
}

/** From the lowest: lifetime points climb through them in this order. */
export const TIERS = LOYALTY_TIERS;
export type Tier = (typeof TIERS)[number];

/** Lifetime points at which each tier above bronze starts. */
export interface TierThresholds {
  silver: number;
  gold: number;
  platinum: number;
}

/** Tier from lifetime points, which only grow, so no redemption can lower it. */
export function tierFor(lifetimePoints: number, thresholds: TierThresholds): Tier {
  if (lifetimePoints >= thresholds.platinum) return 'platinum';
  if (lifetimePoints >= thresholds.gold) return 'gold';
  if (lifetimePoints >= thresholds.silver) return 'silver';
  return 'bronze';
}

/** How fast each tier earns, in basis points of the base rate: 12500 earns ×1.25. */
export type TierMultipliers = Readonly<Record<Tier, number>>;

const BASIS_POINTS = 10_000;

/**
 * A decimal with at most 4 places as whole basis points (1.25 is 12500, 0.1 is 1000); undefined
 * when it is not a number or has more places than basis points hold.
 */
export function basisPointsOf(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const basisPoints = Math.round(value * BASIS_POINTS);
  return Math.abs(basisPoints - value * BASIS_POINTS) > 1e-6 ? undefined : basisPoints;
}

/** A multiplier as people read it: 12500 is "1.25". */
export const multiplierText = (basisPoints: number) => String(basisPoints / BASIS_POINTS);

/**
 * ⌊whole pounds of the goods total after discount × the tier's multiplier⌋, in integers: the
 * pounds are whole before the multiplier applies, and the product is rounded down once.
 */
export function pointsForPurchase(amountPence: number, multiplierBps: number): number {
  const scaled = Math.floor(amountPence / 100) * multiplierBps;
  return (scaled - (scaled % BASIS_POINTS)) / BASIS_POINTS;
}

/** Where an account stands: its tier, what it earns at, and what the next tier needs and earns. */
export interface TierStanding {
  tier: Tier;
  tierMultiplierBps: number;
  /** Absent at the top tier. */
  nextTier?: Tier;
  /** Lifetime points still needed for the next tier; 0 at the top tier. */
  pointsToNextTier: number;
  /** The next tier's multiplier; 0 at the top tier. */
  nextTierMultiplierBps: number;
}

export function tierStanding(
  lifetimePoints: number,
  thresholds: TierThresholds,
  multipliers: TierMultipliers,
): TierStanding {
  const tier = tierFor(lifetimePoints, thresholds);
  const nextTier = TIERS[TIERS.indexOf(tier) + 1];
  if (nextTier === undefined)
    return { tier, tierMultiplierBps: multipliers[tier], pointsToNextTier: 0, nextTierMultiplierBps: 0 };
  return {
    tier,
    tierMultiplierBps: multipliers[tier],
    nextTier,
    pointsToNextTier: thresholds[nextTier as Exclude<Tier, 'bronze'>] - lifetimePoints,
    nextTierMultiplierBps: multipliers[nextTier],
  };
}

/**
 * The points an order's refunds take back in all once `refundedPence` of it has been refunded:
 * the awarded points in proportion to the refunded share of its goods, rounded down, where
 * refunds count against the goods first and shipping last (docs/decisions/0975).
 */
export function pointsToReverse(awarded: number, refundedPence: number, goodsPence: number): number {
  if (awarded <= 0 || goodsPence <= 0) return 0;
  return Math.floor((awarded * Math.min(refundedPence, goodsPence)) / goodsPence);
}

export type EntryType = 'welcome' | 'purchase' | 'redemption' | 'adjustment' | 'reversal' | 'referral';

/** A referral's two sides: who referred, and who joined through the referral. */
export type ReferralSide = 'referrer' | 'referred';

/** Every ledger entry records one event, named by its idempotency key, so it is granted once. */
export const ledgerKey = {
  welcome: (userId: string) => `welcome:${userId}`,
  order: (orderId: string) => `order:${orderId}`,
  redemption: (redemptionId: string) => `redemption:${redemptionId}`,
  adjustment: (operatorKey: string) => `adjustment:${operatorKey}`,
  reversal: (refundId: string) => `reversal:${refundId}`,
  referral: (referralId: string, side: ReferralSide) => `referral:${referralId}:${side}`,
  referralReversal: (referralId: string, side: ReferralSide) => `referral-reversal:${referralId}:${side}`,
};

/**
 * The rewards a sync redeems: known rewards, each at most once per sync, skipping those the
 * account already holds an unused code for (so a repeated or replayed sync redeems nothing
 * more), in the order asked and only while the balance covers them.
 */
export function planSyncRedemptions(
  requestedIds: readonly string[],
  catalog: ReadonlyMap<string, Reward>,
  heldUnusedRewardIds: ReadonlySet<string>,
  balance: number,
): Reward[] {
  const granted: Reward[] = [];
  const considered = new Set<string>();
  let remaining = balance;
  for (const id of requestedIds) {
    const reward = catalog.get(id);
    if (!reward || considered.has(id) || heldUnusedRewardIds.has(id)) continue;
    considered.add(id);
    if (reward.pointsCost > remaining) continue;
    remaining -= reward.pointsCost;
    granted.push(reward);
  }
  return granted;
}

const CODE_RANDOM_LENGTH = 12;
/**
 * Reward codes start with this so people can tell them from shop-wide promo codes. Checkout does
 * not look at it: it tries a code as a promo code first and asks loyalty only when none matches.
 */
const REWARD_CODE_PREFIX = 'RW';

/** A fresh single-use code: 12 characters from a 31-letter alphabet, about 59 random bits. */
export function newRewardCode(): string {
  return REWARD_CODE_PREFIX + randomCode(CODE_RANDOM_LENGTH);
}

/** An open order's hold on a reward code, which lapses at `until` unless released first. */
export interface CodeHold {
  orderId: string;
  until: number;
}

/** Whether a hold keeps `orderId` (or, without one, anybody) from the code at `now`. */
export function holdBlocks(hold: CodeHold | undefined, orderId: string | undefined, now: number): boolean {
  return hold !== undefined && hold.orderId !== orderId && hold.until > now;
}

/** Codes are matched case-insensitively and without surrounding blanks. */
export function normaliseRewardCode(code: string): string {
  return code.trim().toUpperCase();
}

export const LIMITS = {
  userId: 64,
  rewardId: CATALOG_ID_MAX_LENGTH,
  orderId: ORDER_REFERENCE_MAX_LENGTH,
  orderNumber: 32,
  rewardCode: 32,
  requestedRewards: 100,
  adjustmentKey: 100,
  adjustmentReason: 160,
};

/** The largest correction one adjustment may make, either way. */
export const MAX_ADJUSTMENT_POINTS = 1_000_000;

/** A signed whole number of points, not zero, written as `+50`, `-20` or `50`. */
export function parseAdjustmentPoints(text: string): number {
  const points = /^[+-]?\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(points) || points === 0 || Math.abs(points) > MAX_ADJUSTMENT_POINTS) {
    throw invalidArgument(
      `points must be a non-zero whole number from -${MAX_ADJUSTMENT_POINTS} to ` +
        `+${MAX_ADJUSTMENT_POINTS}, got "${text}"`,
      'invalid_points',
    );
  }
  return points;
}

/** A non-empty identifier of printable characters within the length limit. */
export function requireIdentifier(value: string, field: string, maxLength: number): string {
  if (value === '') throw invalidArgument(`${field} is required`);
  if (value.length > maxLength) throw invalidArgument(`${field} must be at most ${maxLength} characters`);
  if (hasControlCharacters(value)) throw invalidArgument(`${field} must not contain control characters`);
  return value;
}

/**
 * How a ledger entry names an order: by the number people read it by (`SRS-10234`) when the caller gives one, else by
 * its id (entries written before orders had numbers).
 */
export function orderName(orderId: string, orderNumber: string): string {
  return orderNumber === '' ? orderId : requireIdentifier(orderNumber, 'order_number', LIMITS.orderNumber);
}

/**
 * The largest amount an award or a refund may name: £100 million, far beyond any order, and low
 * enough that its points (at most ×10) fit a ledger entry.
 */
export const MAX_AMOUNT_PENCE = 10_000_000_000;

export function requireAmountPence(amountPence: number, field = 'amount_pence'): number {
  if (!Number.isSafeInteger(amountPence) || amountPence < 0 || amountPence > MAX_AMOUNT_PENCE)
    throw invalidArgument(`${field} must be a whole number of pence from 0 to ${MAX_AMOUNT_PENCE}`);
  return amountPence;
}

export function requireRequestedRewardIds(ids: readonly string[]): readonly string[] {
  if (ids.length > LIMITS.requestedRewards) {
    throw invalidArgument(`requested_reward_ids must list at most ${LIMITS.requestedRewards} rewards`);
  }
  ids.forEach((id, i) => requireIdentifier(id, `requested_reward_ids[${i}]`, LIMITS.rewardId));
  return ids;
}

/**
 * The size and position of a newest-first page as a request names them: a limit of 0 means
 * `defaultSize`; a cursor is empty (the newest) or the position this service handed out as the
 * previous page's next cursor.
 */
export function requirePage(
  limit: number,
  cursor: string,
  sizes: { defaultSize: number; max: number },
): { size: number; before?: number } {
  if (!Number.isInteger(limit) || limit < 0 || limit > sizes.max)
    throw invalidArgument(`limit must be a whole number from 1 to ${sizes.max}`);
  if (cursor !== '' && !/^[1-9]\d{0,15}$/.test(cursor)) throw invalidArgument('cursor is not one this service issued');
  return { size: limit === 0 ? sizes.defaultSize : limit, ...(cursor === '' ? {} : { before: Number(cursor) }) };
}
