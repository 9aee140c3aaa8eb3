import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { readStoreConfig, type StoreConfig } from '@storefront/db';

export interface CheckoutConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  callerTokenPublicKey: string;
}

export function readCheckoutConfig(env: EnvReader): CheckoutConfig {
  const common = readCommon(env);
  return {
    ...common,
    address: env.address('CHECKOUT_ADDR', '127.0.0.1:50053'),
    store: readStoreConfig(env, 'checkout', common),
    callerTokenPublicKey: env.string('CALLER_TOKEN_PUBLIC_KEY'),
  };
}
