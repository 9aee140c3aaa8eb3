import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { readStoreConfig, type StoreConfig } from '@storefront/db';

export interface LoyaltyConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  callerTokenPublicKey: string;
}

export function readLoyaltyConfig(env: EnvReader): LoyaltyConfig {
  const common = readCommon(env);
  return {
    ...common,
    address: env.address('LOYALTY_ADDR', '127.0.0.1:50052'),
    store: readStoreConfig(env, 'loyalty', common),
    callerTokenPublicKey: env.string('CALLER_TOKEN_PUBLIC_KEY'),
  };
}
