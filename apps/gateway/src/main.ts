import './instrumentation';
import { runMain } from '@storefront/lifecycle';
import { currentTelemetry } from '@storefront/telemetry';
import { readGatewayConfig } from './config';
import { detailedReadiness } from './readiness';
import { startGateway } from './server';

runMain({
  app: 'gateway',
  readConfig: readGatewayConfig,
  start: async (config, logger) => {
    const gateway = await startGateway(config, { logger });
    // Which dependency is down is for operators: the admin port, never the public API.
    currentTelemetry()?.serveOnAdminPort('/ready', () => detailedReadiness(gateway.readiness));
    return gateway;
  },
});
