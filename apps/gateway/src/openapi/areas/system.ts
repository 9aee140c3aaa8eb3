import { errorResponse, jsonResponse, type ApiArea } from '../area';

export const systemArea: ApiArea = {
  schemas: {
    Error: {
      type: 'object',
      required: ['success', 'error', 'detail'],
      properties: {
        success: { type: 'boolean', const: false },
        error: { type: 'string', description: 'Stable snake_case code, e.g. invalid_request' },
        detail: { type: 'string', description: 'Human-readable explanation naming the field at fault' },
      },
      example: { success: false, error: 'invalid_request', detail: 'email must match format "email"' },
    },
    HealthResult: {
      type: 'object',
      required: ['status', 'time'],
      properties: { status: { type: 'string', const: 'ok' }, time: { type: 'string', format: 'date-time' } },
      example: { status: 'ok', time: '2026-11-22T12:00:00.000Z' },
    },
    BuildResult: {
      type: 'object',
      required: ['build'],
      properties: { build: { type: 'string' } },
      example: { build: '3f2a9c1d7e4b' },
    },
  },
  paths: {
    '/api/health': {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness: the gateway process answers',
        tags: ['system'],
        responses: { '200': jsonResponse('The gateway is up', 'HealthResult') },
      },
    },
    '/api/version': {
      get: {
        operationId: 'getVersion',
        summary: 'Build identifier of the running deployment',
        tags: ['system'],
        responses: { '200': jsonResponse('Build identifier', 'BuildResult') },
      },
    },
    '/api/ready': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness: every service the gateway depends on is serving',
        tags: ['system'],
        responses: {
          '200': { description: 'All dependencies serving', content: { 'application/json': { schema: { type: 'object' } } } },
          '503': errorResponse('A dependency is not serving'),
        },
      },
    },
  },
};
