/** `main.js migrate`: each hosted component's migrations on its own store, one after the other. */
import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { migrateToLatest, readStoreConfig, type Migration, type StoreConfig } from '@storefront/db';
import { migrations as checkoutMigrations } from '@storefront/checkout';
import { migrations as identityMigrations } from '@storefront/identity';
import { migrations as inventoryMigrations } from '@storefront/inventory';
import { migrations as loyaltyMigrations } from '@storefront/loyalty';
import type { MigrateCommand } from '@storefront/lifecycle';
import { readHostedComponents, type Component } from './config';

/** Each component's migrations, as this build knows them. */
export const MIGRATIONS: Record<Component, Record<string, Migration>> = {
  identity: identityMigrations,
  loyalty: loyaltyMigrations,
  checkout: checkoutMigrations,
  inventory: inventoryMigrations,
};

interface PlatformMigrateConfig extends CommonConfig {
  stores: Array<{ component: Component; store: StoreConfig }>;
}

export const migrateHostedComponents: MigrateCommand<PlatformMigrateConfig> = {
  readConfig(env: EnvReader) {
    const common = readCommon(env);
    return {
      ...common,
      stores: readHostedComponents(env).map((component) => ({
        component,
        store: readStoreConfig(env, component, common),
      })),
    };
  },
  async run({ stores }) {
    const applied: string[] = [];
    for (const { component, store } of stores) {
      for (const name of await migrateToLatest(store, MIGRATIONS[component])) applied.push(`${component}/${name}`);
    }
    return applied;
  },
};
