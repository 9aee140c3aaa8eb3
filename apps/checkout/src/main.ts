import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { storeMigrations } from '@storefront/db';
import { runMain } from '@storefront/lifecycle';
import { readCheckoutConfig, readCheckoutServeKeys } from './config';
import { migrations } from './migrations';
import { startCheckoutServer } from './server';

runMain({
  app: 'checkout',
  readConfig: readCheckoutConfig,
  // The embedded SQLite default migrates itself; MySQL deployments run `migrate` first.
  start: (config, logger) =>
    startCheckoutServer(config, { migrate: !config.store.mysqlUrl, logger, ...loadOrExit(readCheckoutServeKeys) }),
  migrate: storeMigrations('checkout', migrations),
});
