import { DEFAULT_MERCHANT_CODE } from '@storefront/formats';
import { errorResponse, ref, type ApiArea } from '../../kit/api-docs';

const gbp = (description: string) => ({
  type: 'number',
  minimum: 0,
  description: `${description} (GBP, 2 decimal places)`,
});

export const catalogArea: ApiArea = {
  schemas: {
    CatalogDocument: {
      type: 'object',
      description:
        "The published catalog: every product with its sizes, GBP prices and live stock flags, and checkout's shipping rule. " +
        'The example leaves `shipping` out: its numbers are only ever the ones the live document carries.',
      required: ['generatedAt', 'currency', 'merchantCode', 'shipping', 'products'],
      properties: {
        generatedAt: {
          type: 'string',
          format: 'date-time',
          description: 'When inventory first rendered this version (the same on every pod)',
        },
        currency: { type: 'string', const: 'GBP' },
        merchantCode: { type: 'string', description: 'The merchant_code a checkout must carry' },
        shipping: {
          type: 'object',
          description: 'The shipping rule checkout prices every order by, as checkout states it now',
          required: ['flatFee', 'freeOver'],
          properties: {
            flatFee: gbp('Shipping charged when goods after discount are below freeOver'),
            freeOver: gbp('Goods total (after discount) from which shipping is free'),
          },
        },
        products: { type: 'array', items: ref('CatalogProduct') },
      },
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
    CatalogProduct: {
      type: 'object',
      required: ['id', 'name', 'description', 'sizes'],
      properties: {
        id: { type: 'string', description: 'Slug, e.g. bpc-157' },
        name: { type: 'string' },
        description: { type: 'string' },
        sizes: { type: 'array', items: ref('CatalogSize') },
      },
    },
    CatalogSize: {
      type: 'object',
      required: ['size', 'sku', 'price', 'stockLimited', 'inStock'],
      properties: {
        size: { type: 'string', description: 'e.g. 5mg' },
        sku: { type: 'string', description: '`<product id>-<size>`, the key of the stock map' },
        price: gbp('Unit price'),
        stockLimited: { type: 'boolean', description: 'Whether the SKU appears in GET /api/stock' },
        inStock: { type: 'boolean', description: 'False only for a stock-limited SKU with no units available' },
      },
    },
  },
  paths: {
    '/products.json': {
      get: {
        operationId: 'getCatalog',
        summary: 'The catalog with prices and live stock flags',
        description:
          'Served from memory and refreshed from inventory at least every CATALOG_REFRESH_MS (default 5 s). ' +
          'Send If-None-Match with the ETag to get 304 when nothing changed.',
        tags: ['catalog'],
        parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The catalog document',
            headers: {
              ETag: { schema: { type: 'string' }, description: 'Weak validator of this version' },
              'Cache-Control': { schema: { type: 'string' }, description: '`public, no-cache`: store, but revalidate' },
            },
            content: { 'application/json': { schema: ref('CatalogDocument') } },
          },
          '304': { description: 'The version named in If-None-Match is current' },
          '503': errorResponse('Inventory has not been reachable since this gateway started'),
        },
      },
    },
  },
};
