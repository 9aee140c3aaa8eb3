import './instrumentation';
import { storeMigrations } from '@storefront/db';
import { runMain } from '@storefront/lifecycle';
import { readInventoryConfig } from './config';
import { migrations } from './migrations';
import { startInventoryServer } from './server';

runMain({
  app: 'inventory',
  readConfig: readInventoryConfig,
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` first.
  start: (config, logger) => startInventoryServer(config, { migrate: !config.store.mysqlUrl, logger }),
  migrate: storeMigrations('inventory', migrations),
});
