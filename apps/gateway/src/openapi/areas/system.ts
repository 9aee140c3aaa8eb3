import { errorResponse, jsonResponse, type ApiArea } from '../../kit/api-docs';

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
    ReadyResult: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { type: 'string', const: 'ready' } },
      example: { status: 'ready' },
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
        description:
          'Answers only whether the platform is ready; which dependency is down is reported to operators elsewhere.',
        tags: ['system'],
        responses: {
          '200': jsonResponse('All dependencies serving', 'ReadyResult'),
          '503': errorResponse('Not ready (`not_ready`)'),
        },
      },
    },
  },
};
