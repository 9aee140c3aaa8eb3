import type { Express } from 'express';
import { errorBody } from '@storefront/errors';
import { methodNotAllowed } from '../http/errors';
import type { GatewayContext } from '../context';

export function registerSystemRoutes(app: Express, { config, readiness }: GatewayContext): void {
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

  // Public: ready or not, nothing about what stands behind the gateway (see the admin port's /ready).
  app
    .route('/api/ready')
    .get(async (_req, res) => {
      const { ready } = await readiness.check();
      if (!ready) {
        res.status(503).json(errorBody('not_ready', 'The service is not ready; try again shortly'));
        return;
      }
      res.json({ status: 'ready' });
    })
    .all(methodNotAllowed('GET'));
}
