import type { Express } from 'express';
import { methodNotAllowed } from '../http/errors';
import type { GatewayContext } from '../context';

export function registerStockRoutes(app: Express, { clients }: GatewayContext): void {
  app
    .route('/api/stock')
    .get(async (_req, res) => {
      const { available } = await clients.inventory.getStock({});
      res.setHeader('Cache-Control', 'no-store');
      res.json(available);
    })
    .all(methodNotAllowed('GET'));
}
