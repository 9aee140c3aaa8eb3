/**
 * Loyalty rules as pure functions: what a purchase earns, which tier lifetime points reach,
 * which sync requests become redemptions, the shape of reward codes and of valid input.
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
export interface Account {
  points: number;
  lifetimePoints: number;
  tier: Tier;
  pointsHistory: HistoryEntry[];
  availableRewards: Reward[];
  redeemedRewards: RedeemedReward[];
}

export type Tier = (typeof LOYALTY_TIERS)[number];

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

/** One point per whole pound of the goods total after discount. */
export function pointsForPurchase(amountPence: number): number {
  return Math.floor(amountPence / 100);
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

export type EntryType = 'welcome' | 'purchase' | 'redemption' | 'adjustment' | 'reversal';

/** Every ledger entry records one event, named by its idempotency key, so it is granted once. */
export const ledgerKey = {
  welcome: (userId: string) => `welcome:${userId}`,
  order: (orderId: string) => `order:${orderId}`,
  redemption: (redemptionId: string) => `redemption:${redemptionId}`,
  adjustment: (operatorKey: string) => `adjustment:${operatorKey}`,
  reversal: (refundId: string) => `reversal:${refundId}`,
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
      `points must be a non-zero whole number from -${MAX_ADJUSTMENT_POINTS} to +${MAX_ADJUSTMENT_POINTS}, got "${text}"`,
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

export function requireAmountPence(amountPence: number): number {
  if (!Number.isSafeInteger(amountPence) || amountPence < 0)
    throw invalidArgument('amount_pence must be a whole number of pence, 0 or more');
  return amountPence;
}

export function requireRequestedRewardIds(ids: readonly string[]): readonly string[] {
  if (ids.length > LIMITS.requestedRewards) {
    throw invalidArgument(`requested_reward_ids must list at most ${LIMITS.requestedRewards} rewards`);
  }
  ids.forEach((id, i) => requireIdentifier(id, `requested_reward_ids[${i}]`, LIMITS.rewardId));
  return ids;
}
