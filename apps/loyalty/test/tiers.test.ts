/**
 * Tiers that earn faster: a purchase earns ⌊whole pounds × the multiplier of the tier the account has as the award is
 * written⌋, once per order however many repeats race, and the account read tells the tier's multiplier and how far the
 * next tier is.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { expectNoServerFailures, startForSuite, withBusyCores } from '@storefront/testing';
import { balanceColumns, ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';

const TIER_STARTS = { bronze: 100, silver: 500, gold: 1500, platinum: 5000 } as const;
const MULTIPLIERS = { bronze: 1, silver: 1.25, gold: 1.5, platinum: 2 } as const;

describe('loyalty: tiers earn faster', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  const account = async (userId: string) => (await loyalty.client.getAccount({}, await loyalty.as(userId))).account!;
  /** An opened account with exactly `lifetime` lifetime points: the welcome 100 and one award made at bronze. */
  async function accountWithLifetime(lifetime: number): Promise<string> {
    const userId = newUserId();
    if (lifetime > 100)
      await loyalty.checkout.awardPurchase({
        orderNumber: '',
        userId,
        orderId: `setup-${userId}`,
        amountPence: (lifetime - 100) * 100,
      });
    else await loyalty.client.openAccount({}, await loyalty.as(userId));
    return userId;
  }

  for (const [lifetime, tier, pence, points, description] of [
    [499, 'bronze', 10_099, 100, ''],
    [500, 'silver', 10_199, 126, ' (silver, ×1.25)'],
    [1499, 'silver', 10_000, 125, ' (silver, ×1.25)'],
    [1500, 'gold', 10_199, 151, ' (gold, ×1.5)'],
    [5000, 'platinum', 10_199, 202, ' (platinum, ×2)'],
  ] as const) {
    it(`earns ${points} points for £${pence / 100} at ${lifetime} lifetime points (${tier})`, async () => {
      const userId = await accountWithLifetime(lifetime);
      const orderId = `order-${userId}`;
      expect(
        await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId, amountPence: pence }),
      ).to.deep.equal({
        pointsAwarded: points,
        newlyAwarded: true,
      });
      const after = await account(userId);
      expect(after).to.deep.include({ lifetimePoints: lifetime + points });
      expect(after.pointsHistory[0]).to.deep.include({
        type: 'purchase',
        points,
        description: `Points for order ${orderId}${description}`,
        orderId,
      });
    });
  }

  it('earns at the tier held before the award: the order reaching a tier earns at the one below', async () => {
    const userId = await accountWithLifetime(499);
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `a-${userId}`, amountPence: 100_000 });
    expect(await account(userId)).to.deep.include({ lifetimePoints: 1499, tier: 'silver' });
    expect(
      await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `b-${userId}`, amountPence: 100 }),
    ).to.deep.include({
      pointsAwarded: 1,
    });
    expect(
      await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `c-${userId}`, amountPence: 200 }),
    ).to.deep.include({
      pointsAwarded: 3,
    });
  });

  for (const [lifetime, standing] of [
    [100, { tier: 'bronze', tierMultiplierBps: 10_000, nextTier: 'silver', pointsToNextTier: 400 }],
    [499, { tier: 'bronze', nextTier: 'silver', pointsToNextTier: 1, nextTierMultiplierBps: 12_500 }],
    [500, { tier: 'silver', tierMultiplierBps: 12_500, nextTier: 'gold', pointsToNextTier: 1000 }],
    [1500, { tier: 'gold', tierMultiplierBps: 15_000, nextTier: 'platinum', nextTierMultiplierBps: 20_000 }],
    [7000, { tier: 'platinum', tierMultiplierBps: 20_000, nextTier: undefined, pointsToNextTier: 0 }],
  ] as const) {
    it(`tells the account page at ${lifetime} lifetime points: ${JSON.stringify(standing)}`, async () => {
      expect(await account(await accountWithLifetime(lifetime))).to.deep.include(standing);
    });
  }

  it('tells the standing of a never-opened account as it will open', async () => {
    expect(await account(newUserId())).to.deep.include({
      tier: 'bronze',
      tierMultiplierBps: 10_000,
      nextTier: 'silver',
      pointsToNextTier: 400,
      nextTierMultiplierBps: 12_500,
    });
    await loyalty.server.settled();
  });

  it('awards an order once at the multiplier under 24 repeats at once on busy cores', async () => {
    const userId = await accountWithLifetime(500);
    const orderId = `same-${userId}`;
    const results = await withBusyCores(() =>
      Promise.allSettled(
        Array.from({ length: 24 }, () =>
          loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId, amountPence: 10_000 }),
        ),
      ),
    );
    expectNoServerFailures(results);
    const answers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(answers.filter((answer) => answer.newlyAwarded)).to.have.length(1);
    expect(answers.every((answer) => answer.pointsAwarded === 125)).to.equal(true);
    expect((await ledgerRows(loyalty.server, userId)).filter((row) => row.key === `order:${orderId}`)).to.deep.equal([
      { key: `order:${orderId}`, points: 125, type: 'purchase' },
    ]);
    expect(await balanceColumns(loyalty.server, userId)).to.deep.equal({ points: 625, lifetimePoints: 625 });
  });

  it('awards ⌊whole pounds × multiplier⌋ for any amount and tier, moving the balance by exactly that', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(TIER_STARTS) as Array<keyof typeof TIER_STARTS>)),
        fc.integer({ min: 0, max: 10_000_000 }),
        async (tier, pence) => {
          const userId = await accountWithLifetime(TIER_STARTS[tier]);
          const expected = Math.floor(Math.floor(pence / 100) * MULTIPLIERS[tier]);
          const award = await loyalty.checkout.awardPurchase({
            orderNumber: '',
            userId,
            orderId: `p-${userId}`,
            amountPence: pence,
          });
          expect(award).to.deep.equal({ pointsAwarded: expected, newlyAwarded: true });
          const total = TIER_STARTS[tier] + expected;
          expect(await balanceColumns(loyalty.server, userId)).to.deep.equal({ points: total, lifetimePoints: total });
        },
      ),
      { numRuns: 30 },
    );
  });
});
