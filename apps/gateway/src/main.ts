import './instrumentation';
import { loadOrExit } from '@storefront/config';
import { createLogger } from '@storefront/logging';
import { runMain } from '@storefront/lifecycle';
import { currentTelemetry } from '@storefront/telemetry';
import { readGatewayConfig } from './config';
import { detailedReadiness } from './readiness';
import { startGateway } from './server';

const config = loadOrExit(readGatewayConfig);
const logger = createLogger('gateway', config.logLevel);

runMain({
  logger,
  start: async () => {
    const gateway = await startGateway(config, logger);
    // Which dependency is down is for operators: the admin port, never the public API.
    currentTelemetry()?.serveOnAdminPort('/ready', () => detailedReadiness(gateway.readiness));
    return gateway;
  },
});
