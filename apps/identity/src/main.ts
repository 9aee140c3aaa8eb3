import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { storeMigrations } from '@storefront/db';
import { runMain } from '@storefront/lifecycle';
import { readIdentityConfig, readIdentityServeKeys } from './config';
import { migrations } from './migrations';
import { startIdentityServer } from './server';

runMain({
  app: 'identity',
  readConfig: readIdentityConfig,
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` first.
  start: (config, logger) =>
    startIdentityServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readIdentityServeKeys) }),
  migrate: storeMigrations('identity', migrations),
});
