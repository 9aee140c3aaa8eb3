import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { migrateToLatest } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { readCheckoutConfig, readCheckoutServeKeys } from './config';
import { migrations } from './migrations';
import { startCheckoutServer } from './server';

const config = loadOrExit(readCheckoutConfig);
const logger = createLogger('checkout', config.logLevel);

runMain({
  logger,
  migrate: () => migrateToLatest(config.store, migrations),
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` as a Job.
  start: () => startCheckoutServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readCheckoutServeKeys) }),
});
