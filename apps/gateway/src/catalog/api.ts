/** The catalog as the API publishes it: live stock and /products.json, both answered ahead of Express. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { coalesced } from '@storefront/coalesce';
import type { GatewayContext } from '../context';
import { CatalogDocument, type CatalogCopy } from '../application/catalog';
import { errorResponse, jsonResponse, serviceFailures } from '../kit/api-docs';
import { matchesIfNoneMatch } from '../kit/etag';
import { directGet, type ApiRoutes } from '../kit/routes';
import { component, Type } from '../kit/schema';

const NO_STORE_JSON = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

const StockMap = component(
  'StockMap',
  // additionalProperties as such: Type.Record would describe the keys with patternProperties.
  Type.Unsafe<Record<string, number>>({
    type: 'object',
    description: 'Remaining units per stock-limited SKU (`<product>-<size>`); SKUs absent are not stock-limited.',
    additionalProperties: Type.Integer({ minimum: 0 }),
    example: { 'bpc-157-10mg': 3, 'tb-500-10mg': 12 },
  }),
);

export const catalogApi: ApiRoutes<GatewayContext & { catalog: CatalogCopy }> = {
  tags: [{ name: 'catalog', description: 'Products, prices, live stock and promo codes.' }],
  routes: [
    directGet({
      path: '/api/stock',
      operation: {
        operationId: 'getStock',
        summary: 'Live stock levels of limited SKUs',
        tags: ['catalog'],
        description:
          'Available units (on hand minus active reservations, never below 0) of every stock-limited ' +
          'SKU, read live on each request.',
        responses: {
          '200': jsonResponse('Stock map', StockMap),
          ...serviceFailures('`service_unavailable`: inventory is unreachable'),
        },
      },
      answer: ({ clients }) => {
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
        return async () => ({ status: 200, headers: NO_STORE_JSON, body: await readStock() });
      },
    }),
    directGet({
      path: '/products.json',
      operation: {
        operationId: 'getCatalog',
        summary: 'The catalog with prices and live stock flags',
        description:
          'Served from memory and refreshed from inventory at least every CATALOG_REFRESH_MS (default 5 s). ' +
          'Send If-None-Match with the ETag to get 304 when nothing changed.',
        tags: ['catalog'],
        parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: Type.String() }],
        responses: {
          '200': {
            description: 'The catalog document',
            headers: {
              ETag: { schema: Type.String(), description: 'Weak validator of this version' },
              'Cache-Control': { schema: Type.String(), description: '`public, no-cache`: store, but revalidate' },
            },
            content: { 'application/json': { schema: CatalogDocument } },
          },
          '304': { description: 'The version named in If-None-Match is current' },
          '503': errorResponse('Inventory has not been reachable since this gateway started'),
        },
      },
      answer:
        ({ catalog }) =>
        async (request) => {
          const { etag, body } = await catalog.current();
          // Caches may keep it but must revalidate; the ETag makes that a 304.
          const headers = {
            'Content-Type': 'application/json; charset=utf-8',
            'Cache-Control': 'public, no-cache',
            ETag: etag,
          };
          return matchesIfNoneMatch(request.headers['if-none-match'], etag)
            ? { status: 304, headers }
            : { status: 200, headers, body };
        },
    }),
  ],
};
