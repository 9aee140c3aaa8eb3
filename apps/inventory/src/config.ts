import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { readStoreConfig, type StoreConfig } from '@storefront/db';

export interface InventoryConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  callerTokenPublicKey: string;
  /** Seed the demo catalog into an empty store (the embedded default). */
  seedDemoCatalog: boolean;
}

export function readInventoryConfig(env: EnvReader): InventoryConfig {
  const common = readCommon(env);
  const store = readStoreConfig(env, 'inventory', common);
  return {
    ...common,
    address: env.address('INVENTORY_ADDR', '127.0.0.1:50054'),
    store,
    callerTokenPublicKey: env.string('CALLER_TOKEN_PUBLIC_KEY'),
    seedDemoCatalog: env.oneOf('SEED_DEMO_DATA', ['true', 'false'], store.mysqlUrl ? 'false' : 'true') === 'true',
  };
}
