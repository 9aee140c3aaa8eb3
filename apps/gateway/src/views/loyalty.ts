/**
 * The contract's Loyalty object from the loyalty service's Account, and the one client intent a
 * sync may carry: redemption requests. Everything else a client sends about loyalty is ignored.
 */
import type { loyalty } from '@storefront/proto';
import { basisPointsToFraction } from '../kit/money';
import type { Static } from '../kit/schema';
import type { Loyalty, LoyaltyHistoryEntry } from '../openapi/areas/loyalty';

export type LoyaltyView = Static<typeof Loyalty>;

export function loyaltyView(account: loyalty.Account | undefined): LoyaltyView {
  if (!account)
    return {
      points: 0,
      lifetimePoints: 0,
      tier: 'bronze',
      pointsHistory: [],
      availableRewards: [],
      redeemedRewards: [],
    };
  return {
    points: account.points,
    lifetimePoints: account.lifetimePoints,
    tier: account.tier,
    pointsHistory: account.pointsHistory.map(historyEntryView),
    availableRewards: account.availableRewards.map((reward) => ({
      id: reward.id,
      name: reward.name,
      pointsCost: reward.pointsCost,
      discount: basisPointsToFraction(reward.discountBps),
    })),
    redeemedRewards: account.redeemedRewards.map((redeemed) => ({
      id: redeemed.id,
      rewardId: redeemed.rewardId,
      name: redeemed.name,
      code: redeemed.code,
      redeemedAt: redeemed.redeemedAt,
      ...(redeemed.usedAt ? { usedAt: redeemed.usedAt } : {}),
    })),
  };
}

/**
 * The loyalty a new account is owed while the loyalty service cannot be reached: the welcome
 * bonus (100 points, bronze) the ledger grants on the account's first read. The entry's id is
 * a placeholder until the ledger records it; the rewards catalog is not known here.
 */
export function owedWelcomeLoyalty(accountCreatedAt: string): LoyaltyView {
  const WELCOME_BONUS = 100;
  return {
    points: WELCOME_BONUS,
    lifetimePoints: WELCOME_BONUS,
    tier: 'bronze',
    pointsHistory: [
      {
        id: 'pending-welcome',
        type: 'welcome',
        points: WELCOME_BONUS,
        description: 'Welcome bonus',
        createdAt: accountCreatedAt,
      },
    ],
    availableRewards: [],
    redeemedRewards: [],
  };
}

/**
 * Reward ids the client asks to redeem: `redeemedRewards` entries without a `code`. An entry
 * with a code echoes a redemption the server issued and asks for nothing. The loyalty service
 * skips ids it holds an unused code for, so repeated or replayed syncs redeem nothing more.
 * The body was already validated against the LoyaltySync schema.
 */
export function requestedRewardIds(
  loyaltyState: { redeemedRewards?: Array<{ rewardId?: string; code?: string }> } | undefined,
): string[] {
  const ids = (loyaltyState?.redeemedRewards ?? [])
    .filter((entry) => entry.code === undefined || entry.code === '')
    .map((entry) => entry.rewardId)
    .filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}

/** The contract's LoyaltyHistoryEntry: the order id only on an entry for an order. */
export function historyEntryView(entry: loyalty.HistoryEntry): Static<typeof LoyaltyHistoryEntry> {
  return {
    id: entry.id,
    type: entry.type,
    points: entry.points,
    description: entry.description,
    createdAt: entry.createdAt,
    ...(entry.orderId ? { orderId: entry.orderId } : {}),
  };
}
