import { expect } from 'chai';
import type { RpcClient } from '@storefront/grpc';
import { loyalty } from '@storefront/proto';
import { type HttpClient } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { RequestValidator } from '../../src/kit/validator';
import { buildOpenApiDocument } from '../../src/api';
import { Loyalty } from '../../src/application/loyalty';
import { FAST_ARGON2, signUp, type AuthSuccess, type ErrorBody } from './auth-fixtures';

type LoyaltyBody = AuthSuccess['loyalty'];

describe('gateway: loyalty in AuthSuccess and sanitised sync', () => {
  let stack: Stack;
  let loyaltyRpc: RpcClient<typeof loyalty.LoyaltyServiceService>;
  const schemas = new RequestValidator(buildOpenApiDocument('http://localhost:8080').components.schemas);
  before(async () => {
    stack = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2 });
    // Checkout awards points for paid orders; these tests award them the same way.
    loyaltyRpc = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'checkout');
  });
  after(async () => {
    loyaltyRpc?.close();
    await stack?.stop();
  });

  async function customer(): Promise<{ client: HttpClient; userId: string; loyalty: LoyaltyBody }> {
    const client = stack.client();
    const { profile, res } = await signUp(client);
    return { client, userId: profile.id, loyalty: res.body.loyalty };
  }
  async function me(client: HttpClient): Promise<LoyaltyBody> {
    const res = await client.get<AuthSuccess>('/api/auth/me');
    expect(res.status).to.equal(200);
    schemas.check(Loyalty, res.body.loyalty, 'body');
    return res.body.loyalty;
  }
  const sync = (client: HttpClient, loyaltyState: unknown) =>
    client.post<{ success: boolean } | ErrorBody>('/api/state/sync', { loyalty: loyaltyState });
  /** Points for a paid order of `pounds` GBP, as checkout awards them. */
  const awardPounds = (userId: string, pounds: number) =>
    loyaltyRpc.awardPurchase({
      orderNumber: '',
      userId,
      orderId: `order-${userId}-${Date.now()}-${Math.random()}`,
      amountPence: pounds * 100,
    });

  it('grants the 100-point welcome bonus at signup and shows the same account on me and login', async () => {
    const client = stack.client();
    const { customer: details, res } = await signUp(client);
    const account = res.body.loyalty;
    schemas.check(Loyalty, account, 'body');
    expect(account).to.deep.include({ points: 100, lifetimePoints: 100, tier: 'bronze', redeemedRewards: [] });
    expect(account.pointsHistory).to.have.length(1);
    expect(account.pointsHistory[0]).to.deep.include({ type: 'welcome', points: 100, description: 'Welcome bonus' });
    expect(account.pointsHistory[0]).to.not.have.property('orderId');
    expect(account.availableRewards.map((r) => [r.id, r.pointsCost])).to.deep.equal([
      ['ten-percent-off', 500],
      ['fifteen-percent-off', 1000],
      ['twenty-percent-off', 2000],
    ]);
    expect(await me(client)).to.deep.equal(account);
    const login = await stack
      .client()
      .post<AuthSuccess>('/api/auth/login', { email: details.email, password: details.password });
    expect(login.body.loyalty).to.deep.equal(account);
  });

  it('takes nothing from a sync that tries to inflate balances, tier, history or rewards', async () => {
    const { client, userId } = await customer();
    // Enough points for any reward, so a request taken wrongly would show.
    await awardPounds(userId, 2500);
    const before = await me(client);
    const attempts = [
      { points: 999_999, lifetimePoints: 999_999, tier: 'platinum' },
      {
        pointsHistory: [
          {
            id: 'forged',
            type: 'purchase',
            points: 50_000,
            description: 'Gift',
            createdAt: '2026-01-01T00:00:00.000Z',
            orderId: 'x',
          },
        ],
      },
      {
        availableRewards: [{ id: 'everything-free', name: 'Free', pointsCost: 0, discount: 1 }],
        redeemedRewards: [{ rewardId: 'everything-free' }],
      },
      {
        redeemedRewards: [
          {
            id: 'forged',
            rewardId: 'twenty-percent-off',
            name: '20% off',
            code: 'RWFORGEDCODE00',
            redeemedAt: '2026-01-01T00:00:00.000Z',
          },
        ],
      },
      { bonusPoints: 10_000, multiplier: 100, points: 5 },
      { ...before, points: before.points + 1000, lifetimePoints: before.lifetimePoints + 1000 },
    ];
    for (const attempt of attempts) {
      const res = await sync(client, attempt);
      expect(res.status, JSON.stringify(attempt)).to.equal(200);
      expect(res.body).to.deep.equal({ success: true });
    }
    expect(await me(client)).to.deep.equal(before);
  });

  for (const [label, state, field] of [
    ['points as a string', { points: 'lots' }, 'loyalty.points'],
    ['negative points', { points: -5 }, 'loyalty.points'],
    ['fractional lifetime points', { lifetimePoints: 10.5 }, 'loyalty.lifetimePoints'],
    ['an unknown tier', { tier: 'diamond' }, 'loyalty.tier'],
    ['redeemedRewards that is not a list', { redeemedRewards: 'ten-percent-off' }, 'loyalty.redeemedRewards'],
    ['a numeric rewardId', { redeemedRewards: [{ rewardId: 5 }] }, 'loyalty.redeemedRewards.0.rewardId'],
    [
      'an over-long rewardId',
      { redeemedRewards: [{ rewardId: 'x'.repeat(65) }] },
      'loyalty.redeemedRewards.0.rewardId',
    ],
    ['a history entry with string points', { pointsHistory: [{ points: '100' }] }, 'loyalty.pointsHistory.0.points'],
    ['a huge history', { pointsHistory: Array.from({ length: 101 }, () => ({})) }, 'loyalty.pointsHistory'],
    [
      'a huge reward list',
      { redeemedRewards: Array.from({ length: 101 }, () => ({ rewardId: 'ten-percent-off' })) },
      'loyalty.redeemedRewards',
    ],
    ['loyalty that is not an object', 'platinum', 'loyalty'],
  ] as const) {
    it(`answers 400 naming the field for ${label}, and changes nothing`, async () => {
      const { client, userId } = await customer();
      await awardPounds(userId, 2000);
      const before = await me(client);
      // Beside the bad member, a redemption request that alone would be granted.
      const body = typeof state === 'object' ? { redeemedRewards: [{ rewardId: 'ten-percent-off' }], ...state } : state;
      const res = await sync(client, body);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ success: false, error: 'invalid_request' });
      expect((res.body as ErrorBody).detail).to.contain(field);
      expect(await me(client)).to.deep.equal(before);
    });
  }

  it('refuses a redemption the balance does not cover and changes nothing', async () => {
    const { client, userId } = await customer();
    await awardPounds(userId, 399);
    const before = await me(client);
    expect(before.points).to.equal(499);
    const res = await sync(client, { redeemedRewards: [{ rewardId: 'ten-percent-off' }] });
    expect([res.status, res.body]).to.deep.equal([200, { success: true }]);
    expect(await me(client)).to.deep.equal(before);
  });

  it('redeems a requested reward once: debits points, writes history, issues a code; replays do nothing', async () => {
    const { client, userId } = await customer();
    await awardPounds(userId, 450);
    const request = { redeemedRewards: [{ rewardId: 'ten-percent-off' }, { rewardId: 'ten-percent-off' }] };
    expect((await sync(client, request)).body).to.deep.equal({ success: true });
    const after = await me(client);
    expect(after).to.deep.include({ points: 50, lifetimePoints: 550, tier: 'silver' });
    expect(after.redeemedRewards).to.have.length(1);
    expect(after.redeemedRewards[0]).to.deep.include({ rewardId: 'ten-percent-off', name: '10% off your next order' });
    expect(after.redeemedRewards[0]!.code).to.match(/^RW[2-9A-HJKMNP-Z]{12}$/);
    expect(after.pointsHistory.map((entry) => [entry.type, entry.points])).to.deep.equal([
      ['redemption', -500],
      ['purchase', 450],
      ['welcome', 100],
    ]);
    // The same request again, and the account sent back as the client now holds it.
    await sync(client, request);
    await sync(client, after);
    expect(await me(client)).to.deep.equal(after);
    const { valid, discountBps } = await loyaltyRpc.checkRewardCode({ code: after.redeemedRewards[0]!.code, userId });
    expect({ valid, discountBps }).to.deep.equal({ valid: true, discountBps: 1000 });
  });

  it('shows the tier at the exact thresholds of lifetime points', async () => {
    const { client, userId } = await customer();
    // Pounds earn at the tier's multiplier (silver ×1.25, gold ×1.5), rounded down.
    const steps: Array<[number, number, string]> = [
      [399, 499, 'bronze'],
      [1, 500, 'silver'],
      [799, 1498, 'silver'],
      [2, 1500, 'gold'],
      [2333, 4999, 'gold'],
      [1, 5000, 'platinum'],
    ];
    for (const [pounds, lifetimePoints, tier] of steps) {
      await awardPounds(userId, pounds);
      expect(await me(client)).to.deep.include({ lifetimePoints, tier });
    }
    // Spending points keeps the tier.
    await sync(client, {
      redeemedRewards: [
        { rewardId: 'twenty-percent-off' },
        { rewardId: 'fifteen-percent-off' },
        { rewardId: 'ten-percent-off' },
      ],
    });
    expect(await me(client)).to.deep.include({ points: 1500, lifetimePoints: 5000, tier: 'platinum' });
  });
});
