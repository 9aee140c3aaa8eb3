import type { Express } from 'express';
import { errorBody } from '@storefront/errors';
import { methodNotAllowed } from '../kit/errors';
import type { GatewayContext } from '../context';
import type { DirectRoutes } from '../kit/direct-routes';

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

export function registerSystemRoutes(app: Express, direct: DirectRoutes, { config, readiness }: GatewayContext): void {
  direct.add(app, {
    path: '/api/health',
    answer: () => ({
      status: 200,
      headers: JSON_TYPE,
      body: Buffer.from(JSON.stringify({ status: 'ok', time: new Date().toISOString() })),
    }),
  });

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
