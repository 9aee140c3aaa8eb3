import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { migrateToLatest } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { readIdentityConfig, readIdentityServeKeys } from './config';
import { migrations } from './migrations';
import { startIdentityServer } from './server';

const config = loadOrExit(readIdentityConfig);
const logger = createLogger('identity', config.logLevel);

runMain({
  logger,
  migrate: () => migrateToLatest(config.store, migrations),
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` as a Job.
  start: () => startIdentityServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readIdentityServeKeys) }),
});
