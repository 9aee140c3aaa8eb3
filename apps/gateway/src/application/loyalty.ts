/**
 * A customer's loyalty as the public API shows it (the contract's Loyalty), from the loyalty service's Account or, at
 * a sign-up while loyalty cannot be reached, as the account is owed.
 */
import { LOYALTY_TIERS, LOYALTY_WELCOME } from '@storefront/formats';
import type { loyalty } from '@storefront/proto';
import { basisPointsToFraction } from '../kit/money';
import { component, StringEnum, Type, type Static } from '../kit/schema';

const text = () => Type.String();

export const LoyaltyHistoryEntry = component(
  'LoyaltyHistoryEntry',
  Type.Object({
    id: text(),
    type: StringEnum(['welcome', 'purchase', 'redemption', 'adjustment', 'reversal']),
    points: Type.Integer({ description: 'Signed: negative for redemptions' }),
    description: text(),
    createdAt: Type.String({ format: 'date-time' }),
    orderId: Type.Optional(Type.String({ description: 'The order a purchase entry is for' })),
  }),
);

const LoyaltyReward = component(
  'LoyaltyReward',
  Type.Object({
    id: text(),
    name: text(),
    pointsCost: Type.Integer({ minimum: 1 }),
    discount: Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'Decimal fraction: 0.10 means 10% off' }),
  }),
);

const LoyaltyRedeemedReward = component(
  'LoyaltyRedeemedReward',
  Type.Object({
    id: text(),
    rewardId: text(),
    name: text(),
    code: Type.String({ description: "Single-use promo code for this account's next order" }),
    redeemedAt: Type.String({ format: 'date-time' }),
    usedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When an order used the code' })),
  }),
);

export const Loyalty = component(
  'Loyalty',
  Type.Object(
    {
      points: Type.Integer({ minimum: 0, description: 'Spendable balance' }),
      lifetimePoints: Type.Integer({
        minimum: 0,
        description: 'Every point ever earned; redemptions do not reduce it',
      }),
      tier: StringEnum(LOYALTY_TIERS),
      pointsHistory: Type.Array(LoyaltyHistoryEntry, { description: 'Newest first' }),
      availableRewards: Type.Array(LoyaltyReward, { description: 'The rewards catalog' }),
      redeemedRewards: Type.Array(LoyaltyRedeemedReward, { description: 'Newest first' }),
    },
    {
      description:
        "The customer's loyalty account. Points and lifetime points are sums over a server-side ledger; the tier " +
        'follows lifetime points (bronze from 0, silver from 500, gold from 1500, platinum from 5000) and never ' +
        'falls when points are spent. History and redeemed rewards list the newest 100 entries.',
      example: {
        points: 100,
        lifetimePoints: 600,
        tier: 'silver',
        pointsHistory: [
          {
            id: '0d6c1d52-5b7e-4f0a-9a55-3f1f6b0f2f10',
            type: 'redemption',
            points: -500,
            description: 'Redeemed: 10% off your next order',
            createdAt: '2026-03-02T09:30:00.000Z',
          },
          {
            id: '7b1e9f3a-2f4c-4c1e-8f7d-2d9b3c4a5e61',
            type: 'purchase',
            points: 500,
            description: 'Points for order 4f9c2a',
            createdAt: '2026-03-01T12:00:00.000Z',
            orderId: '4f9c2a',
          },
          {
            id: 'c2a4e6f8-1b3d-4f5a-9c7e-0a2b4c6d8e0f',
            type: 'welcome',
            points: 100,
            description: 'Welcome bonus',
            createdAt: '2026-03-01T10:00:00.000Z',
          },
        ],
        availableRewards: [{ id: 'ten-percent-off', name: '10% off your next order', pointsCost: 500, discount: 0.1 }],
        redeemedRewards: [
          {
            id: '5e0f2c8a-6d1b-4a3e-b7c9-1f2e3d4c5b6a',
            rewardId: 'ten-percent-off',
            name: '10% off your next order',
            code: 'RW7KQ4M2XHPZ9C',
            redeemedAt: '2026-03-02T09:30:00.000Z',
          },
        ],
      },
    },
  ),
);

export type LoyaltyView = Static<typeof Loyalty>;

export function loyaltyView(account: loyalty.Account | undefined): LoyaltyView {
  if (!account)
    return {
      points: 0,
      lifetimePoints: 0,
      tier: LOYALTY_WELCOME.tier,
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
 * The loyalty a new account is owed while the loyalty service cannot be reached: the welcome bonus on loyalty's
 * terms (LOYALTY_WELCOME), which the ledger grants on the account's first read. The entry's id is a placeholder until
 * the ledger records it; the rewards catalog is not known here.
 */
export function owedWelcomeLoyalty(accountCreatedAt: string): LoyaltyView {
  const { points, tier, description, pendingEntryId } = LOYALTY_WELCOME;
  return {
    points,
    lifetimePoints: points,
    tier,
    pointsHistory: [{ id: pendingEntryId, type: 'welcome', points, description, createdAt: accountCreatedAt }],
    availableRewards: [],
    redeemedRewards: [],
  };
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
