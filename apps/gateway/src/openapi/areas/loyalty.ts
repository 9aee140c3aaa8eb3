import { CATALOG_ID_MAX_LENGTH } from '@storefront/formats';
import { component, StringEnum, Type, type TSchema } from '../../kit/schema';

const TIERS = ['bronze', 'silver', 'gold', 'platinum'];
// Client copies of loyalty state are bounded like the server's own lists (newest 100).
const MAX_LIST = 100;
const text = () => Type.String();

/** A client's copy of a list: elements are objects whose known members must have the right type. */
const clientList = (properties: Record<string, TSchema>) =>
  Type.Array(
    Type.Object(Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)]))),
    {
      maxItems: MAX_LIST,
    },
  );

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
      tier: StringEnum(TIERS),
      pointsHistory: Type.Array(LoyaltyHistoryEntry, { description: 'Newest first' }),
      availableRewards: Type.Array(LoyaltyReward, { description: 'The rewards catalog' }),
      redeemedRewards: Type.Array(LoyaltyRedeemedReward, { description: 'Newest first' }),
    },
    {
      description:
        "The customer's loyalty account. Points and lifetime points are sums over a server-side ledger; the tier follows lifetime points " +
        '(bronze from 0, silver from 500, gold from 1500, platinum from 5000) and never falls when points are spent. ' +
        'History and redeemed rewards list the newest 100 entries.',
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

export const LoyaltySync = component(
  'LoyaltySync',
  Type.Object(
    {
      points: Type.Optional(Type.Integer({ minimum: 0 })),
      lifetimePoints: Type.Optional(Type.Integer({ minimum: 0 })),
      tier: Type.Optional(StringEnum(TIERS)),
      pointsHistory: Type.Optional(
        clientList({
          id: text(),
          type: text(),
          points: Type.Integer(),
          description: text(),
          createdAt: text(),
          orderId: text(),
        }),
      ),
      availableRewards: Type.Optional(
        clientList({
          id: text(),
          name: text(),
          pointsCost: Type.Integer({ minimum: 0 }),
          discount: Type.Number({ minimum: 0, maximum: 1 }),
        }),
      ),
      redeemedRewards: Type.Optional(
        clientList({
          id: text(),
          rewardId: Type.String({
            minLength: 1,
            maxLength: CATALOG_ID_MAX_LENGTH,
            pattern: '^[\\x21-\\x7e]+$',
            description: 'A reward id from availableRewards',
          }),
          name: text(),
          code: text(),
          redeemedAt: text(),
          usedAt: text(),
        }),
      ),
    },
    {
      description:
        "Loyalty state as a client holds it. The server keeps its own balances, tier, history and reward lists and ignores the client's. " +
        'The one intent honoured: a `redeemedRewards` entry without a `code` whose `rewardId` names an available reward asks to redeem it; ' +
        'it is granted when the balance covers the cost and the account holds no unused code for that reward. ' +
        'Known members must have the types shown (else 400); unknown members are dropped.',
      example: { redeemedRewards: [{ rewardId: 'ten-percent-off' }] },
    },
  ),
);
