import { expect } from 'chai';
import fc from 'fast-check';
import { ConfigError, EnvReader } from '@storefront/config';
import { AppError } from '@storefront/errors';
import {
  MAX_AMOUNT_PENCE,
  TIERS,
  newRewardCode,
  planSyncRedemptions,
  pointsForPurchase,
  tierStanding,
} from '../src/domain/rules';
import { parseRewardsFile } from '../src/rewards-file';
import { parseTierMultipliersFile, readTierMultipliersFile } from '../src/tier-multipliers-file';
import { DEFAULT_TIER_MULTIPLIERS_FILE, readLoyaltyConfig } from '../src/config';

/** The problems a parser reports for a refused input. */
function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return (error as AppError).detail;
  }
  throw new Error('expected the input to be refused');
}

const SHOP_MULTIPLIERS = { bronze: 10_000, silver: 12_500, gold: 15_000, platinum: 20_000 };
const THRESHOLDS = { silver: 500, gold: 1500, platinum: 5000 };

describe('loyalty rules', () => {
  it('earns one point per whole pound at ×1, rounding down', () => {
    expect([0, 99, 100, 12_999, 1_000_000].map((pence) => pointsForPurchase(pence, 10_000))).to.deep.equal([
      0, 0, 1, 129, 10_000,
    ]);
  });

  it('earns ⌊whole pounds × the tier multiplier⌋ for any amount and tier', () => {
    const asPeopleSayIt = { bronze: 1, silver: 1.25, gold: 1.5, platinum: 2 };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT_PENCE }), fc.constantFrom(...TIERS), (pence, tier) => {
        // 1.25, 1.5 and 2 are exact binary fractions, so this float product is exact.
        const expected = Math.floor(Math.floor(pence / 100) * asPeopleSayIt[tier]);
        expect(pointsForPurchase(pence, SHOP_MULTIPLIERS[tier])).to.equal(expected);
      }),
      { numRuns: 2000 },
    );
    // Any multiplier: the pounds are whole first, the product rounded down once.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_AMOUNT_PENCE }),
        fc.integer({ min: 10_000, max: 100_000 }),
        (p, bps) => {
          const points = pointsForPurchase(p, bps);
          const scaled = Math.floor(p / 100) * bps;
          expect(points * 10_000).to.be.at.most(scaled);
          expect((points + 1) * 10_000).to.be.above(scaled);
        },
      ),
      { numRuns: 2000 },
    );
    expect([pointsForPurchase(10_199, 15_000), pointsForPurchase(10_099, 12_500)]).to.deep.equal([151, 125]);
  });

  it('tells the tier, what it earns at, and how far and how fast the next tier is', () => {
    const standing = (lifetime: number) => tierStanding(lifetime, THRESHOLDS, SHOP_MULTIPLIERS);
    expect(standing(100)).to.deep.equal({
      tier: 'bronze',
      tierMultiplierBps: 10_000,
      nextTier: 'silver',
      pointsToNextTier: 400,
      nextTierMultiplierBps: 12_500,
    });
    expect(standing(500)).to.deep.include({ tier: 'silver', nextTier: 'gold', pointsToNextTier: 1000 });
    expect(standing(4999)).to.deep.include({ tier: 'gold', tierMultiplierBps: 15_000, pointsToNextTier: 1 });
    expect(standing(5000)).to.deep.equal({
      tier: 'platinum',
      tierMultiplierBps: 20_000,
      pointsToNextTier: 0,
      nextTierMultiplierBps: 0,
    });
  });

  it('reads the shipped tier multipliers: bronze ×1, silver ×1.25, gold ×1.5, platinum ×2', () => {
    expect(readTierMultipliersFile(DEFAULT_TIER_MULTIPLIERS_FILE)).to.deep.equal(SHOP_MULTIPLIERS);
  });

  it('refuses a tier multipliers file naming each bad entry', () => {
    const problems = refusal(() =>
      parseTierMultipliersFile({ multipliers: { bronze: 0.5, silver: 1.25, gold: 1.2, diamond: 3 } }),
    );
    for (const part of [
      'multipliers.bronze must be a number from 1 to 10',
      'multipliers.gold (1.2) must not be below multipliers.silver (1.25)',
      'multipliers.platinum is missing',
      'multipliers.diamond names no tier',
    ]) {
      expect(problems).to.contain(part);
    }
    expect(refusal(() => parseTierMultipliersFile({ multipliers: { ...SHOP_MULTIPLIERS, gold: '1.5' } }))).to.contain(
      'multipliers.gold must be a number',
    );
    expect(
      refusal(() => parseTierMultipliersFile({ multipliers: { bronze: 1, silver: 1.00001, gold: 2, platinum: 11 } })),
    ).to.match(/multipliers\.silver must .*multipliers\.platinum must/);
    expect(refusal(() => parseTierMultipliersFile({ tiers: [] }))).to.contain('"multipliers" object');
  });

  it('plans sync redemptions: known, not held unused, once each, in order, while affordable', () => {
    const catalog = new Map(
      [
        { id: 'a', name: 'A', pointsCost: 500, discountBps: 1000 },
        { id: 'b', name: 'B', pointsCost: 300, discountBps: 500 },
        { id: 'c', name: 'C', pointsCost: 100, discountBps: 100 },
      ].map((reward) => [reward.id, reward]),
    );
    const plan = (ids: string[], held: string[], balance: number) =>
      planSyncRedemptions(ids, catalog, new Set(held), balance).map((r) => r.id);
    expect(plan(['a', 'a', 'b', 'zzz'], [], 10_000)).to.deep.equal(['a', 'b']);
    expect(plan(['a', 'b', 'c'], ['a'], 10_000)).to.deep.equal(['b', 'c']);
    expect(plan(['a', 'b', 'c'], [], 600)).to.deep.equal(['a', 'c']);
    expect(plan(['a'], [], 499)).to.deep.equal([]);
  });

  it('issues distinct codes from the unambiguous alphabet', () => {
    const codes = new Set(Array.from({ length: 200 }, newRewardCode));
    expect(codes.size).to.equal(200);
    for (const code of codes) expect(code).to.match(/^RW[2-9A-HJKMNP-Z]{12}$/);
  });

  it('reads the rewards file into basis points and reports every problem with its path', () => {
    expect(parseRewardsFile({ rewards: [{ id: 'x', name: ' X ', pointsCost: 10, discount: 0.125 }] })).to.deep.equal([
      { id: 'x', name: 'X', pointsCost: 10, discountBasisPoints: 1250 },
    ]);
    const problems = refusal(() =>
      parseRewardsFile({
        rewards: [
          { id: 'Bad Id', name: '', pointsCost: 0, discount: 1.5 },
          { id: 'x', name: 'X', pointsCost: 1, discount: 0.12345 },
        ],
      }),
    );
    for (const part of [
      'rewards[0].id',
      'rewards[0].name',
      'rewards[0].pointsCost',
      'rewards[0].discount',
      'rewards[1].discount',
    ]) {
      expect(problems).to.contain(part);
    }
    expect(() => parseRewardsFile({ items: [] })).to.throw(AppError, '"rewards" array');
  });

  const env = (vars: Record<string, string>) => new EnvReader({ CALLER_TOKEN_PUBLIC_KEY: 'k', ...vars });

  it('refuses tier thresholds that do not rise from silver to platinum', () => {
    expect(readLoyaltyConfig(env({})).tiers).to.deep.equal({ silver: 500, gold: 1500, platinum: 5000 });
    expect(() => readLoyaltyConfig(env({ LOYALTY_TIER_GOLD: '400' }))).to.throw(
      ConfigError,
      'LOYALTY_TIER_SILVER < LOYALTY_TIER_GOLD',
    );
    expect(() => readLoyaltyConfig(env({ LOYALTY_TIER_SILVER: '-1' }))).to.throw(ConfigError, 'LOYALTY_TIER_SILVER');
  });

  it('holds reward codes for 45 minutes unless LOYALTY_CODE_HOLD_SECONDS says otherwise, within 60 s to 2 days', () => {
    expect(readLoyaltyConfig(env({})).codeHoldSeconds).to.equal(2700);
    expect(readLoyaltyConfig(env({ LOYALTY_CODE_HOLD_SECONDS: '3600' })).codeHoldSeconds).to.equal(3600);
    expect(() => readLoyaltyConfig(env({ LOYALTY_CODE_HOLD_SECONDS: '59' }))).to.throw(
      ConfigError,
      'LOYALTY_CODE_HOLD_SECONDS',
    );
    expect(() => readLoyaltyConfig(env({ LOYALTY_CODE_HOLD_SECONDS: '172801' }))).to.throw(
      ConfigError,
      'LOYALTY_CODE_HOLD_SECONDS',
    );
  });
});
