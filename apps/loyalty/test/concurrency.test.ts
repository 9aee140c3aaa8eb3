import { expect } from 'chai';
import type { AppError } from '@storefront/errors';
import { ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';
import { expectNoServerFailures, startForSuite, withBusyCores } from '@storefront/testing';

// Enough parallel calls to exceed MySQL's pool of 10 connections, so calls really contend.
const PARALLEL = 24;

describe('loyalty service: concurrent calls for one account', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  /** `n` calls at once on busy cores; a call may be refused or meet a busy store, never fail otherwise. */
  const times = async <T>(n: number, call: (i: number) => Promise<T>) => {
    const results = await withBusyCores(() => Promise.allSettled(Array.from({ length: n }, (_, i) => call(i))));
    expectNoServerFailures(results);
    return results;
  };
  const fulfilled = <T>(results: PromiseSettledResult<T>[]) =>
    results.map((result) => (result.status === 'fulfilled' ? result.value : undefined));

  it('opens an account and grants the welcome bonus once under parallel opens and first reads', async () => {
    const userId = newUserId();
    const options = await loyalty.as(userId);
    const results = fulfilled(
      await times(PARALLEL, (i) =>
        i % 2 === 0 ? loyalty.client.openAccount({}, options) : loyalty.client.getAccount({}, options),
      ),
    );
    for (const result of results) expect(result?.account).to.deep.include({ points: 100, lifetimePoints: 100 });
    expect(await ledgerRows(loyalty.server, userId)).to.deep.equal([
      { key: `welcome:${userId}`, points: 100, type: 'welcome' },
    ]);
  });

  it('awards one order once under parallel repeats, and every distinct order once', async () => {
    const userId = newUserId();
    const repeats = fulfilled(
      await times(PARALLEL, () =>
        loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `same-${userId}`, amountPence: 10_000 }),
      ),
    );
    expect(repeats.filter((r) => r?.newlyAwarded)).to.have.length(1);
    expect(repeats.every((r) => r?.pointsAwarded === 100)).to.equal(true);
    fulfilled(
      await times(PARALLEL, (i) =>
        loyalty.checkout.awardPurchase({
          orderNumber: '',
          userId,
          orderId: `distinct-${userId}-${i}`,
          amountPence: 1_000,
        }),
      ),
    );
    const rows = await ledgerRows(loyalty.server, userId);
    expect(rows).to.have.length(2 + PARALLEL);
    expect(new Set(rows.map((row) => row.key)).size).to.equal(rows.length);
    const { account } = await loyalty.client.getAccount({}, await loyalty.as(userId));
    expect(account).to.deep.include({ points: 100 + 100 + 10 * PARALLEL });
  });

  it('never overdraws under parallel redemptions', async () => {
    const userId = newUserId();
    // 100 welcome + 1100 = 1200: room for exactly two 500-point rewards.
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `fund-${userId}`, amountPence: 110_000 });
    const options = await loyalty.as(userId);
    const results = await times(PARALLEL, () => loyalty.client.redeem({ rewardId: 'ten-percent-off' }, options));
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason as AppError);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(2);
    expect(refused.every((error) => error.code === 'insufficient_points')).to.equal(true);
    const { account } = await loyalty.client.getAccount({}, options);
    expect(account).to.deep.include({ points: 200, lifetimePoints: 1200 });
    expect(account!.redeemedRewards).to.have.length(2);
    expect(new Set(account!.redeemedRewards.map((r) => r.code)).size).to.equal(2);
  });

  it('redeems one reward once under parallel syncs asking for it, mixed with awards', async () => {
    const userId = newUserId();
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `fund-${userId}`, amountPence: 500_000 });
    const options = await loyalty.as(userId);
    fulfilled(
      await times<unknown>(PARALLEL, (i) =>
        i % 3 === 0
          ? loyalty.checkout.awardPurchase({
              orderNumber: '',
              userId,
              orderId: `mixed-${userId}-${i}`,
              amountPence: 100,
            })
          : loyalty.client.sync({ requestedRewardIds: ['ten-percent-off'] }, options),
      ),
    );
    const { account } = await loyalty.client.getAccount({}, options);
    expect(account!.redeemedRewards).to.have.length(1);
    // The funding award made the account platinum, so each £1 order earns ×2.
    expect(account!.points).to.equal(100 + 5000 + (2 * PARALLEL) / 3 - 500);
  });

  it('lets exactly one of several orders use a reward code', async () => {
    const userId = newUserId();
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `fund-${userId}`, amountPence: 50_000 });
    const { redeemed } = await loyalty.client.redeem({ rewardId: 'ten-percent-off' }, await loyalty.as(userId));
    const results = await times(PARALLEL, (i) =>
      loyalty.checkout.useRewardCode({ code: redeemed!.code, userId, orderId: `order-${i}` }),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const codes = results
      .filter((r) => r.status === 'rejected')
      .map((r) => ((r as PromiseRejectedResult).reason as AppError).code);
    expect(new Set(codes)).to.deep.equal(new Set(['reward_code_used']));
  });
});
