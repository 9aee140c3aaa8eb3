import './instrumentation';
import { runMain } from '@storefront/lifecycle';
import { readGatewayConfig } from './config';
import { startGateway } from './server';

runMain({ app: 'gateway', readConfig: readGatewayConfig, start: (config, logger) => startGateway(config, logger) });
