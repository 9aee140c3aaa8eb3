import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { readStoreConfig, type StoreConfig } from '@storefront/db';

export interface IdentityConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  callerTokenPublicKey: string;
}

export function readIdentityConfig(env: EnvReader): IdentityConfig {
  const common = readCommon(env);
  return {
    ...common,
    address: env.address('IDENTITY_ADDR', '127.0.0.1:50051'),
    store: readStoreConfig(env, 'identity', common),
    callerTokenPublicKey: env.string('CALLER_TOKEN_PUBLIC_KEY'),
  };
}
