import { expect } from 'chai';
import { ConfigError, EnvReader } from '@storefront/config';
import { AppError } from '@storefront/errors';
import { newRewardCode, planSyncRedemptions, pointsForPurchase } from '../src/domain/rules';
import { parseRewardsFile } from '../src/rewards-file';
import { readLoyaltyConfig } from '../src/config';

describe('loyalty rules', () => {
  it('earns one point per whole pound, rounding down', () => {
    expect([0, 99, 100, 12_999, 1_000_000].map(pointsForPurchase)).to.deep.equal([0, 0, 1, 129, 10_000]);
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
    const problems = (() => {
      try {
        parseRewardsFile({
          rewards: [
            { id: 'Bad Id', name: '', pointsCost: 0, discount: 1.5 },
            { id: 'x', name: 'X', pointsCost: 1, discount: 0.12345 },
          ],
        });
      } catch (error) {
        expect(error).to.be.instanceOf(AppError);
        return (error as AppError).detail;
      }
      throw new Error('expected the file to be refused');
    })();
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
