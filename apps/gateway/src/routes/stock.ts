import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Express } from 'express';
import { coalesced } from '@storefront/coalesce';
import type { GatewayContext } from '../context';
import type { DirectRoutes } from '../kit/direct-routes';

const HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

export function registerStockRoutes(app: Express, direct: DirectRoutes, { clients }: GatewayContext): void {
  // Requests that arrive together share one GetStock call, and its answer is serialised once for
  // all of them; none is answered from a call that started before it arrived (see
  // @storefront/coalesce), so stock shown is never staler. Each call first waits for the event
  // loop's turn to end: an in-process read on SQLite would otherwise finish within the turn of
  // the request that started it, before the next request is even parsed, and no two requests
  // would share one; with the wait, the requests parsed meanwhile share the next call.
  const readStock = coalesced(async () => {
    await nextTurn();
    return Buffer.from(JSON.stringify((await clients.inventory.getStock({})).available));
  });
  direct.add(app, {
    path: '/api/stock',
    answer: async () => ({ status: 200, headers: HEADERS, body: await readStock() }),
  });
}
