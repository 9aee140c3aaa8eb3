import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { readGatewayConfig } from './config';
import { startGateway } from './server';

const config = loadOrExit(readGatewayConfig);
const logger = createLogger('gateway', config.logLevel);

runMain({ logger, start: () => startGateway(config, logger) });
