import path from 'node:path';
import { ConfigError, type EnvReader } from '@storefront/config';
import { readGrpcServiceConfig, type GrpcServiceConfig } from '@storefront/lifecycle';
import { callersOf } from '@storefront/grpc';
import { readServiceTokenPublicKeys, type ServicePublicKeys } from '@storefront/service-token';
import { LOYALTY_ACCESS } from './access';
import type { TierThresholds } from './domain/rules';

export interface LoyaltyConfig extends GrpcServiceConfig {
  /** Lifetime points at which each tier above bronze starts. */
  tiers: TierThresholds;
  /** The rewards catalog, loaded into the store at every start. */
  rewardsFile: string;
  /** How much faster each tier earns purchase points, loaded at every start. */
  tierMultipliersFile: string;
  /** How long an open order's hold on a reward code lasts unless paid or released first. */
  codeHoldSeconds: number;
}

export const DEFAULT_REWARDS_FILE = path.join(__dirname, '..', 'data', 'rewards.json');
export const DEFAULT_TIER_MULTIPLIERS_FILE = path.join(__dirname, '..', 'data', 'tier-multipliers.json');

export function readLoyaltyConfig(env: EnvReader): LoyaltyConfig {
  return {
    ...readGrpcServiceConfig(env, 'loyalty', '127.0.0.1:50052'),
    ...readLedgerSettings(env),
    rewardsFile: env.string('LOYALTY_REWARDS_FILE', DEFAULT_REWARDS_FILE),
  };
}

/** The ledger's own rules, which the ops command line needs as much as the server. */
export function readLedgerSettings(
  env: EnvReader,
): Pick<LoyaltyConfig, 'tiers' | 'tierMultipliersFile' | 'codeHoldSeconds'> {
  const tiers: TierThresholds = {
    silver: env.int('LOYALTY_TIER_SILVER', 500, { min: 1 }),
    gold: env.int('LOYALTY_TIER_GOLD', 1500, { min: 1 }),
    platinum: env.int('LOYALTY_TIER_PLATINUM', 5000, { min: 1 }),
  };
  if (!(tiers.silver < tiers.gold && tiers.gold < tiers.platinum)) {
    throw new ConfigError(
      'LOYALTY_TIER_SILVER < LOYALTY_TIER_GOLD < LOYALTY_TIER_PLATINUM must hold, got ' +
        `${tiers.silver}, ${tiers.gold}, ${tiers.platinum}`,
    );
  }
  return {
    tiers,
    tierMultipliersFile: env.string('LOYALTY_TIER_MULTIPLIERS_FILE', DEFAULT_TIER_MULTIPLIERS_FILE),
    // A little longer than checkout's 30-minute payment window: the hold outlives its order only
    // when checkout never released it, and then it lapses on its own.
    codeHoldSeconds: env.int('LOYALTY_CODE_HOLD_SECONDS', 45 * 60, { min: 60, max: 2 * 24 * 60 * 60 }),
  };
}

/** Keys only serving needs, read apart from the rest so `migrate` needs none of them. */
export interface LoyaltyServeKeys {
  /** Public keys of the services loyalty's access table admits. */
  servicePublicKeys: ServicePublicKeys;
}

export function readLoyaltyServeKeys(env: EnvReader): LoyaltyServeKeys {
  return { servicePublicKeys: readServiceTokenPublicKeys(env, callersOf(LOYALTY_ACCESS)) };
}
