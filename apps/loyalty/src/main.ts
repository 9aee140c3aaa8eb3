import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { storeMigrations } from '@storefront/db';
import { runMain } from '@storefront/lifecycle';
import { readLoyaltyConfig, readLoyaltyServeKeys } from './config';
import { migrations } from './migrations';
import { startLoyaltyServer } from './server';

runMain({
  app: 'loyalty',
  readConfig: readLoyaltyConfig,
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` first.
  start: (config, logger) =>
    startLoyaltyServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readLoyaltyServeKeys) }),
  migrate: storeMigrations('loyalty', migrations),
});
