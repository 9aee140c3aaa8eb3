import type { Express } from 'express';
import { coalesced } from '@storefront/coalesce';
import { methodNotAllowed } from '../http/errors';
import type { GatewayContext } from '../context';

export function registerStockRoutes(app: Express, { clients }: GatewayContext): void {
  // Requests that arrive together share one GetStock call; none is answered from a call that
  // started before it arrived (see @storefront/coalesce), so stock shown is never staler.
  const readStock = coalesced(async () => (await clients.inventory.getStock({})).available);
  app
    .route('/api/stock')
    .get(async (_req, res) => {
      const available = await readStock();
      res.setHeader('Cache-Control', 'no-store');
      res.json(available);
    })
    .all(methodNotAllowed('GET'));
}
