/**
 * Ledger invariants under any sequence of operations: the service is checked step by step
 * against a small model (purchases earning at the tier's multiplier), and the stored ledger
 * against its definition (balance = Σ entries ≥ 0, lifetime = Σ positive entries, each
 * idempotency key once, tier never falls), and the account's balance columns against the
 * ledger's sums.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { AppError } from '@storefront/errors';
import type { loyalty } from '@storefront/proto';
import { balanceColumns, ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';
import { startForSuite } from '@storefront/testing';

const COSTS: Record<string, number> = {
  'ten-percent-off': 500,
  'fifteen-percent-off': 1000,
  'twenty-percent-off': 2000,
};
const REWARD_IDS = [...Object.keys(COSTS), 'no-such-reward'];
const TIER_ORDER = ['bronze', 'silver', 'gold', 'platinum'];
const tierOf = (lifetime: number) =>
  lifetime >= 5000 ? 'platinum' : lifetime >= 1500 ? 'gold' : lifetime >= 500 ? 'silver' : 'bronze';
const MULTIPLIERS: Record<string, number> = { bronze: 1, silver: 1.25, gold: 1.5, platinum: 2 };
/** Whole pounds at the multiplier of the tier the account has when the award is written, rounded down. */
const purchasePoints = (pence: number, lifetime: number) =>
  Math.floor(Math.floor(pence / 100) * MULTIPLIERS[tierOf(lifetime)]!);

type Op =
  | { kind: 'open' }
  | { kind: 'read' }
  | { kind: 'award'; order: number; pence: number }
  | { kind: 'redeem'; rewardId: string }
  | { kind: 'sync'; rewardIds: string[] }
  | { kind: 'useNewestCode'; order: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'open' as const }),
  fc.constant({ kind: 'read' as const }),
  // Few order ids, so repeats of one order are common.
  fc.record({
    kind: fc.constant('award' as const),
    order: fc.integer({ min: 0, max: 4 }),
    pence: fc.integer({ min: 0, max: 250_000 }),
  }),
  fc.record({ kind: fc.constant('redeem' as const), rewardId: fc.constantFrom(...REWARD_IDS) }),
  fc.record({
    kind: fc.constant('sync' as const),
    rewardIds: fc.array(fc.constantFrom(...REWARD_IDS), { maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('useNewestCode' as const), order: fc.integer({ min: 0, max: 2 }) }),
);

/** What the account must look like: an independent, in-memory statement of the rules. */
class Model {
  opened = false;
  points = 0;
  lifetime = 0;
  readonly awarded = new Map<number, number>();
  /** Reward id per issued code, and whether it was used. */
  readonly codes: Array<{ code: string; rewardId: string; used: boolean }> = [];

  open() {
    if (this.opened) return;
    this.opened = true;
    this.credit(100);
  }
  credit(points: number) {
    this.points += points;
    this.lifetime += points;
  }
  holdsUnused(rewardId: string) {
    return this.codes.some((c) => c.rewardId === rewardId && !c.used);
  }
}

describe('loyalty service: ledger invariants (property-based)', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  async function apply(op: Op, userId: string, model: Model): Promise<loyalty.Account | undefined> {
    const as = await loyalty.as(userId);
    const orderId = (n: number) => `${userId}-order-${n}`;
    switch (op.kind) {
      case 'open':
        model.open();
        return (await loyalty.client.openAccount({}, as)).account;
      case 'read':
        model.open();
        return (await loyalty.client.getAccount({}, as)).account;
      case 'award': {
        model.open();
        const result = await loyalty.checkout.awardPurchase({
          orderNumber: '',
          userId,
          orderId: orderId(op.order),
          amountPence: op.pence,
        });
        const first = !model.awarded.has(op.order);
        if (first) {
          model.awarded.set(op.order, purchasePoints(op.pence, model.lifetime));
          model.credit(model.awarded.get(op.order)!);
        }
        expect(result).to.deep.equal({ pointsAwarded: model.awarded.get(op.order), newlyAwarded: first });
        return undefined;
      }
      case 'redeem': {
        const cost = COSTS[op.rewardId];
        if (cost !== undefined) model.open();
        try {
          const { redeemed } = await loyalty.client.redeem({ rewardId: op.rewardId }, as);
          expect(cost, 'redeemed an unknown reward').to.be.a('number');
          expect(model.points, 'redeemed beyond the balance').to.be.at.least(cost!);
          model.points -= cost!;
          model.codes.push({ code: redeemed!.code, rewardId: op.rewardId, used: false });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          expect(error.code).to.equal(cost === undefined ? 'reward_not_found' : 'insufficient_points');
          if (cost !== undefined) expect(model.points).to.be.below(cost);
        }
        return undefined;
      }
      case 'sync': {
        model.open();
        const account = (await loyalty.client.sync({ requestedRewardIds: op.rewardIds }, as)).account!;
        for (const rewardId of new Set(op.rewardIds)) {
          const cost = COSTS[rewardId];
          if (cost === undefined || model.holdsUnused(rewardId) || model.points < cost) continue;
          model.points -= cost;
          const issued = account.redeemedRewards.find(
            (r) => r.rewardId === rewardId && !r.usedAt && !model.codes.some((c) => c.code === r.code),
          );
          expect(issued, `sync issued no code for ${rewardId}`).to.not.equal(undefined);
          model.codes.push({ code: issued!.code, rewardId, used: false });
        }
        return account;
      }
      case 'useNewestCode': {
        const newest = model.codes.findLast((c) => !c.used);
        if (!newest) return undefined;
        await loyalty.checkout.useRewardCode({ code: newest.code, userId, orderId: orderId(op.order) });
        newest.used = true;
        return undefined;
      }
    }
  }

  it('keeps balance = Σ entries ≥ 0, lifetime = Σ positive entries, columns equal, each key granted once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 20 }), async (ops) => {
        const userId = newUserId();
        const model = new Model();
        let highestTier = 0;
        for (const op of ops) {
          const returned = await apply(op, userId, model);
          if (!model.opened) continue;
          const account = returned ?? (await loyalty.client.getAccount({}, await loyalty.as(userId))).account!;
          expect(account).to.deep.include({
            points: model.points,
            lifetimePoints: model.lifetime,
            tier: tierOf(model.lifetime),
            tierMultiplierBps: MULTIPLIERS[tierOf(model.lifetime)]! * 10_000,
          });
          expect(account.points).to.be.at.least(0);
          const tier = TIER_ORDER.indexOf(account.tier);
          expect(tier, 'the tier fell').to.be.at.least(highestTier);
          highestTier = tier;
        }
        // A read of a never-opened account opens it off the read path; the ledger is checked once that is done.
        await loyalty.server.settled();
        const rows = await ledgerRows(loyalty.server, userId);
        if (!model.opened) {
          expect(rows).to.deep.equal([]);
          expect(await balanceColumns(loyalty.server, userId)).to.equal(undefined);
          return;
        }
        const ledger = {
          points: rows.reduce((sum, row) => sum + row.points, 0),
          lifetimePoints: rows.filter((row) => row.points > 0).reduce((sum, row) => sum + row.points, 0),
        };
        expect(ledger).to.deep.equal({ points: model.points, lifetimePoints: model.lifetime });
        expect(
          await balanceColumns(loyalty.server, userId),
          'the balance columns disagree with the ledger',
        ).to.deep.equal(ledger);
        expect(new Set(rows.map((row) => row.key)).size).to.equal(rows.length);
        expect(rows.filter((row) => row.type === 'welcome')).to.deep.equal([
          { key: `welcome:${userId}`, points: 100, type: 'welcome' },
        ]);
        expect(rows.filter((row) => row.type === 'purchase')).to.have.length(model.awarded.size);
        expect(rows.filter((row) => row.type === 'redemption')).to.have.length(model.codes.length);
      }),
      { numRuns: 40, interruptAfterTimeLimit: 120_000, markInterruptAsFailure: false },
    );
  });
});
