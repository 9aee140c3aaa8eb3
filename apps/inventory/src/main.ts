import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { storeMigrations } from '@storefront/db';
import { runMain } from '@storefront/lifecycle';
import { readInventoryConfig, readInventoryServeKeys } from './config';
import { migrations } from './migrations';
import { startInventoryServer } from './server';

runMain({
  app: 'inventory',
  readConfig: readInventoryConfig,
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` first.
  start: (config, logger) =>
    startInventoryServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readInventoryServeKeys) }),
  migrate: storeMigrations('inventory', migrations),
});
