import { jsonResponse, serviceFailures, type ApiArea } from '../../kit/api-docs';

export const stockArea: ApiArea = {
  schemas: {
    StockMap: {
      type: 'object',
      description: 'Remaining units per stock-limited SKU (`<product>-<size>`); SKUs absent are not stock-limited.',
      additionalProperties: { type: 'integer', minimum: 0 },
      example: { 'bpc-157-10mg': 3, 'tb-500-10mg': 12 },
    },
  },
  paths: {
    '/api/stock': {
      get: {
        operationId: 'getStock',
        summary: 'Live stock levels of limited SKUs',
        tags: ['catalog'],
        description:
          'Available units (on hand minus active reservations, never below 0) of every stock-limited SKU, read live on each request.',
        responses: {
          '200': jsonResponse('Stock map', 'StockMap'),
          ...serviceFailures('`service_unavailable`: inventory is unreachable'),
        },
      },
    },
  },
};
