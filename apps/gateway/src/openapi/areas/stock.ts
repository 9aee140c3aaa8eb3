import { jsonResponse, serviceFailures, type ApiPart } from '../../kit/api-docs';
import { component, Type } from '../../kit/schema';

export const StockMap = component(
  'StockMap',
  // additionalProperties as such: Type.Record would describe the keys with patternProperties.
  Type.Unsafe<Record<string, number>>({
    type: 'object',
    description: 'Remaining units per stock-limited SKU (`<product>-<size>`); SKUs absent are not stock-limited.',
    additionalProperties: Type.Integer({ minimum: 0 }),
    example: { 'bpc-157-10mg': 3, 'tb-500-10mg': 12 },
  }),
);

export const stockArea: ApiPart = {
  tags: [{ name: 'catalog', description: 'Products, prices, live stock and promo codes.' }],
  paths: {
    '/api/stock': {
      get: {
        operationId: 'getStock',
        summary: 'Live stock levels of limited SKUs',
        tags: ['catalog'],
        description:
          'Available units (on hand minus active reservations, never below 0) of every stock-limited SKU, read live on each request.',
        responses: {
          '200': jsonResponse('Stock map', StockMap),
          ...serviceFailures('`service_unavailable`: inventory is unreachable'),
        },
      },
    },
  },
};
