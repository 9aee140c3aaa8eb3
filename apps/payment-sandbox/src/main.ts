import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { readPaymentSandboxConfig } from './config';
import { startPaymentSandbox } from './server';

const config = loadOrExit(readPaymentSandboxConfig);
const logger = createLogger('payment-sandbox', config.logLevel);

runMain({ logger, start: () => startPaymentSandbox(config, { logger }) });
