import { DEFAULT_MERCHANT_CODE } from '@storefront/formats';
import { errorResponse, type ApiPart } from '../../kit/api-docs';
import { component, Type } from '../../kit/schema';

const gbp = (description: string) => Type.Number({ minimum: 0, description: `${description} (GBP, 2 decimal places)` });

export const CatalogSize = component(
  'CatalogSize',
  Type.Object({
    size: Type.String({ description: 'e.g. 5mg' }),
    sku: Type.String({ description: '`<product id>-<size>`, the key of the stock map' }),
    price: gbp('Unit price'),
    stockLimited: Type.Boolean({ description: 'Whether the SKU appears in GET /api/stock' }),
    inStock: Type.Boolean({ description: 'False only for a stock-limited SKU with no units available' }),
  }),
);

export const CatalogProduct = component(
  'CatalogProduct',
  Type.Object({
    id: Type.String({ description: 'Slug, e.g. bpc-157' }),
    name: Type.String(),
    description: Type.String(),
    sizes: Type.Array(CatalogSize),
  }),
);

export const CatalogDocument = component(
  'CatalogDocument',
  Type.Object(
    {
      generatedAt: Type.String({
        format: 'date-time',
        description: 'When inventory first rendered this version (the same on every pod)',
      }),
      currency: Type.Literal('GBP'),
      merchantCode: Type.String({ description: 'The merchant_code a checkout must carry' }),
      shipping: Type.Object(
        {
          flatFee: gbp('Shipping charged when goods after discount are below freeOver'),
          freeOver: gbp('Goods total (after discount) from which shipping is free'),
        },
        { description: 'The shipping rule checkout prices every order by, as checkout states it now' },
      ),
      products: Type.Array(CatalogProduct),
    },
    {
      description:
        "The published catalog: every product with its sizes, GBP prices and live stock flags, and checkout's shipping rule. " +
        'The example leaves `shipping` out: its numbers are only ever the ones the live document carries.',
      example: {
        generatedAt: '2026-11-22T12:00:00.000Z',
        currency: 'GBP',
        merchantCode: DEFAULT_MERCHANT_CODE,
        products: [
          {
            id: 'bpc-157',
            name: 'BPC-157',
            description: 'Pentadecapeptide, lyophilised powder. For research use only.',
            sizes: [
              { size: '5mg', sku: 'bpc-157-5mg', price: 24.99, stockLimited: true, inStock: true },
              { size: '10mg', sku: 'bpc-157-10mg', price: 39.99, stockLimited: true, inStock: false },
            ],
          },
        ],
      },
    },
  ),
);

export const catalogArea: ApiPart = {
  paths: {
    '/products.json': {
      get: {
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
    },
  },
};
