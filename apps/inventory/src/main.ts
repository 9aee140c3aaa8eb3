import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { migrateToLatest } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { readInventoryConfig, readInventoryServeKeys } from './config';
import { migrations } from './migrations';
import { startInventoryServer } from './server';

const config = loadOrExit(readInventoryConfig);
const logger = createLogger('inventory', config.logLevel);

runMain({
  logger,
  migrate: () => migrateToLatest(config.store, migrations),
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` as a Job.
  start: () => startInventoryServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readInventoryServeKeys) }),
});
