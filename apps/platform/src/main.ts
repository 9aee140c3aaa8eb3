import './instrumentation';
import { runMain } from '@storefront/lifecycle';
import { currentTelemetry } from '@storefront/telemetry';
import { detailedReadiness } from '@storefront/gateway';
import { COMPONENTS, readPlatformConfig } from './config';
import { startBackupSchedule } from './backup/schedule';
import { migrateHostedComponents } from './migrate';
import { startPlatform } from './platform';

runMain({
  app: 'platform',
  readConfig: readPlatformConfig,
  start: async (config, logger) => {
    const platform = await startPlatform(config, { logger });
    // Which dependency is down is for operators: the admin port, never the public API.
    currentTelemetry()?.serveOnAdminPort('/ready', () => detailedReadiness(platform.gateway.readiness));
    if (!config.backups) return platform;
    const backups = startBackupSchedule(config.backups, config.dataDir, COMPONENTS, logger.child({ job: 'backup' }));
    return {
      async stop() {
        await backups.stop();
        await platform.stop();
      },
    };
  },
  migrate: migrateHostedComponents,
});
