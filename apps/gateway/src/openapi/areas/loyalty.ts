import { CATALOG_ID_MAX_LENGTH } from '@storefront/formats';
import type { ApiArea, JsonSchema } from '../../kit/api-docs';
import { ref } from '../../kit/api-docs';

const TIERS = ['bronze', 'silver', 'gold', 'platinum'];
// Client copies of loyalty state are bounded like the server's own lists (newest 100).
const MAX_LIST = 100;
const text = { type: 'string' };

/** A client's copy of a list: elements are objects whose known members must have the right type. */
const clientList = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'array',
  maxItems: MAX_LIST,
  items: { type: 'object', properties },
});

export const loyaltyArea: ApiArea = {
  schemas: {
    Loyalty: {
      type: 'object',
      description:
        "The customer's loyalty account. Points and lifetime points are sums over a server-side ledger; the tier follows lifetime points " +
        '(bronze from 0, silver from 500, gold from 1500, platinum from 5000) and never falls when points are spent. ' +
        'History and redeemed rewards list the newest 100 entries.',
      required: ['points', 'lifetimePoints', 'tier', 'pointsHistory', 'availableRewards', 'redeemedRewards'],
      properties: {
        points: { type: 'integer', minimum: 0, description: 'Spendable balance' },
        lifetimePoints: {
          type: 'integer',
          minimum: 0,
          description: 'Every point ever earned; redemptions do not reduce it',
        },
        tier: { type: 'string', enum: TIERS },
        pointsHistory: { type: 'array', items: ref('LoyaltyHistoryEntry'), description: 'Newest first' },
        availableRewards: { type: 'array', items: ref('LoyaltyReward'), description: 'The rewards catalog' },
        redeemedRewards: { type: 'array', items: ref('LoyaltyRedeemedReward'), description: 'Newest first' },
      },
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
    LoyaltyHistoryEntry: {
      type: 'object',
      required: ['id', 'type', 'points', 'description', 'createdAt'],
      properties: {
        id: text,
        type: { type: 'string', enum: ['welcome', 'purchase', 'redemption', 'adjustment', 'reversal'] },
        points: { type: 'integer', description: 'Signed: negative for redemptions' },
        description: text,
        createdAt: { type: 'string', format: 'date-time' },
        orderId: { type: 'string', description: 'The order a purchase entry is for' },
      },
    },
    LoyaltyReward: {
      type: 'object',
      required: ['id', 'name', 'pointsCost', 'discount'],
      properties: {
        id: text,
        name: text,
        pointsCost: { type: 'integer', minimum: 1 },
        discount: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 1,
          description: 'Decimal fraction: 0.10 means 10% off',
        },
      },
    },
    LoyaltyRedeemedReward: {
      type: 'object',
      required: ['id', 'rewardId', 'name', 'code', 'redeemedAt'],
      properties: {
        id: text,
        rewardId: text,
        name: text,
        code: { type: 'string', description: "Single-use promo code for this account's next order" },
        redeemedAt: { type: 'string', format: 'date-time' },
        usedAt: { type: 'string', format: 'date-time', description: 'When an order used the code' },
      },
    },
    LoyaltySync: {
      type: 'object',
      description:
        "Loyalty state as a client holds it. The server keeps its own balances, tier, history and reward lists and ignores the client's. " +
        'The one intent honoured: a `redeemedRewards` entry without a `code` whose `rewardId` names an available reward asks to redeem it; ' +
        'it is granted when the balance covers the cost and the account holds no unused code for that reward. ' +
        'Known members must have the types shown (else 400); unknown members are dropped.',
      properties: {
        points: { type: 'integer', minimum: 0 },
        lifetimePoints: { type: 'integer', minimum: 0 },
        tier: { type: 'string', enum: TIERS },
        pointsHistory: clientList({
          id: text,
          type: text,
          points: { type: 'integer' },
          description: text,
          createdAt: text,
          orderId: text,
        }),
        availableRewards: clientList({
          id: text,
          name: text,
          pointsCost: { type: 'integer', minimum: 0 },
          discount: { type: 'number', minimum: 0, maximum: 1 },
        }),
        redeemedRewards: clientList({
          id: text,
          rewardId: {
            type: 'string',
            minLength: 1,
            maxLength: CATALOG_ID_MAX_LENGTH,
            pattern: '^[\\x21-\\x7e]+$',
            description: 'A reward id from availableRewards',
          },
          name: text,
          code: text,
          redeemedAt: text,
          usedAt: text,
        }),
      },
      example: { redeemedRewards: [{ rewardId: 'ten-percent-off' }] },
    },
  },
  paths: {},
};
