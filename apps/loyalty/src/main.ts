import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { migrateToLatest } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { readLoyaltyConfig, readLoyaltyServeKeys } from './config';
import { migrations } from './migrations';
import { startLoyaltyServer } from './server';

const config = loadOrExit(readLoyaltyConfig);
const logger = createLogger('loyalty', config.logLevel);

runMain({
  logger,
  migrate: () => migrateToLatest(config.store, migrations),
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` as a Job.
  start: () => startLoyaltyServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readLoyaltyServeKeys) }),
});
