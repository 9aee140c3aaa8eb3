/**
 * The rewards catalog file (see docs/loyalty.md): what customers can redeem points for.
 * Parsing is strict and reports every problem with its JSON path, so a bad file stops the
 * service at start instead of offering a broken reward.
 */
import { invalidArgument } from '@storefront/errors';
import { checkCatalogEntry } from '@storefront/formats';
import { basisPointsOf } from './domain/rules';

export interface RewardDefinition {
  id: string;
  name: string;
  pointsCost: number;
  /** The discount in hundredths of a percent: 1000 is 10% off. */
  discountBasisPoints: number;
}

const MAX_REWARDS = 100;
const MAX_POINTS_COST = 1_000_000;

export function parseRewardsFile(input: unknown): RewardDefinition[] {
  const root = input as { rewards?: unknown };
  if (typeof input !== 'object' || input === null || !Array.isArray(root.rewards)) {
    throw invalidArgument('rewards catalog must be an object with a "rewards" array');
  }
  if (root.rewards.length > MAX_REWARDS)
    throw invalidArgument(`rewards catalog lists more than ${MAX_REWARDS} rewards`);
  const problems: string[] = [];
  const seenIds = new Set<string>();
  const rewards = root.rewards.map((raw: unknown, i: number): RewardDefinition => {
    const at = `rewards[${i}]`;
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    checkCatalogEntry(r, at, seenIds, problems);
    if (!Number.isInteger(r.pointsCost) || (r.pointsCost as number) < 1 || (r.pointsCost as number) > MAX_POINTS_COST) {
      problems.push(`${at}.pointsCost must be an integer from 1 to ${MAX_POINTS_COST}`);
    }
    const basisPoints = basisPointsOf(r.discount) ?? NaN;
    if (!(basisPoints > 0 && basisPoints <= 10_000)) {
      problems.push(`${at}.discount must be a fraction above 0 and at most 1 with at most 4 decimal places`);
    }
    return {
      id: r.id as string,
      name: String(r.name).trim(),
      pointsCost: r.pointsCost as number,
      discountBasisPoints: basisPoints,
    };
  });
  if (problems.length > 0) throw invalidArgument(problems.join('; '));
  return rewards;
}
