import type { Express } from 'express';
import { health } from '@storefront/proto';
import { createRpcClient } from '@storefront/grpc';
import { errorBody } from '@storefront/errors';
import { methodNotAllowed } from '../http/errors';
import type { GatewayContext } from '../context';

const READINESS_DEADLINE_MS = 1000;

export function registerSystemRoutes(app: Express, { config }: GatewayContext): void {
  app
    .route('/api/health')
    .get((_req, res) => {
      res.json({ status: 'ok', time: new Date().toISOString() });
    })
    .all(methodNotAllowed('GET'));

  const version = { build: config.buildId };
  app
    .route('/api/version')
    .get((_req, res) => {
      res.json(version);
    })
    .all(methodNotAllowed('GET'));

  // Readiness asks each service's standard health endpoint, which itself checks that
  // service's store, so one answer covers the services and their databases.
  // Health is open to every caller (kubelet probes cannot sign), so these clients carry no service token.
  const probes = (Object.keys(config.addresses) as Array<keyof typeof config.addresses>).map((name) => ({
    name,
    client: createRpcClient(health.HealthService, config.addresses[name], { target: name, defaultDeadlineMs: READINESS_DEADLINE_MS }),
  }));
  app
    .route('/api/ready')
    .get(async (_req, res) => {
      const results = await Promise.all(
        probes.map(async ({ name, client }) => {
          try {
            const { status } = await client.check({ service: '' });
            return [name, status === health.HealthCheckResponse_ServingStatus.SERVING ? 'serving' : 'not_serving'] as const;
          } catch {
            return [name, 'unreachable'] as const;
          }
        }),
      );
      const services = Object.fromEntries(results);
      const down = results.filter(([, state]) => state !== 'serving').map(([name, state]) => `${name} ${state}`);
      if (down.length > 0) {
        res.status(503).json({ ...errorBody('not_ready', down.join(', ')), services });
        return;
      }
      res.json({ status: 'ready', services });
    })
    .all(methodNotAllowed('GET'));
}
