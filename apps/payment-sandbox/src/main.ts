import './instrumentation';
import { runMain } from '@storefront/lifecycle';
import { readPaymentSandboxConfig } from './config';
import { startPaymentSandbox } from './server';

runMain({
  app: 'payment-sandbox',
  readConfig: readPaymentSandboxConfig,
  start: (config, logger) => startPaymentSandbox(config, { logger }),
});
