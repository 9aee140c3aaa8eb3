/**
 * The tier multipliers file (see docs/loyalty.md): how much faster each tier earns purchase
 * points. Parsed as strictly as the rewards catalog: every problem is reported with the entry it
 * names, so a bad file stops the service at start instead of awarding wrong points.
 */
import fs from 'node:fs';
import { invalidArgument } from '@storefront/errors';
import { TIERS, basisPointsOf, multiplierText, type Tier, type TierMultipliers } from './domain/rules';

/** The highest multiplier a tier may earn at; also what keeps an award within a ledger entry. */
const MAX_MULTIPLIER_BPS = 100_000;

export function parseTierMultipliersFile(input: unknown): TierMultipliers {
  const multipliers = (input as { multipliers?: unknown } | null)?.multipliers;
  if (typeof multipliers !== 'object' || multipliers === null || Array.isArray(multipliers)) {
    throw invalidArgument('tier multipliers file must be an object with a "multipliers" object naming each tier');
  }
  const given = multipliers as Record<string, unknown>;
  const problems = Object.keys(given)
    .filter((name) => !(TIERS as readonly string[]).includes(name))
    .map((name) => `multipliers.${name} names no tier (${TIERS.join(', ')})`);
  const parsed: Partial<Record<Tier, number>> = {};
  let lower: { tier: Tier; basisPoints: number } | undefined;
  for (const tier of TIERS) {
    const at = `multipliers.${tier}`;
    if (!(tier in given)) {
      problems.push(`${at} is missing`);
      continue;
    }
    const basisPoints = basisPointsOf(given[tier]);
    if (basisPoints === undefined || basisPoints < 10_000 || basisPoints > MAX_MULTIPLIER_BPS) {
      problems.push(`${at} must be a number from 1 to ${MAX_MULTIPLIER_BPS / 10_000} with at most 4 decimal places`);
      continue;
    }
    if (lower && basisPoints < lower.basisPoints) {
      problems.push(
        `${at} (${multiplierText(basisPoints)}) must not be below multipliers.${lower.tier} ` +
          `(${multiplierText(lower.basisPoints)}): a higher tier never earns slower`,
      );
    }
    parsed[tier] = basisPoints;
    lower = { tier, basisPoints };
  }
  if (problems.length > 0) throw invalidArgument(problems.join('; '));
  return parsed as TierMultipliers;
}

export function readTierMultipliersFile(file: string): TierMultipliers {
  return parseTierMultipliersFile(JSON.parse(fs.readFileSync(file, 'utf8')));
}
