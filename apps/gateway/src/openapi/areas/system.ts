import { errorResponse, jsonResponse, type ApiPart } from '../../kit/api-docs';
import { component, Type } from '../../kit/schema';

const HealthResult = component(
  'HealthResult',
  Type.Object(
    { status: Type.Literal('ok'), time: Type.String({ format: 'date-time' }) },
    { example: { status: 'ok', time: '2026-11-22T12:00:00.000Z' } },
  ),
);

const ReadyResult = component(
  'ReadyResult',
  Type.Object({ status: Type.Literal('ready') }, { additionalProperties: false, example: { status: 'ready' } }),
);

const BuildResult = component(
  'BuildResult',
  Type.Object({ build: Type.String() }, { example: { build: '3f2a9c1d7e4b' } }),
);

export const systemArea: ApiPart = {
  tags: [{ name: 'system', description: 'Liveness, readiness and the build identifier.' }],
  paths: {
    '/api/health': {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness: the gateway process answers',
        tags: ['system'],
        responses: { '200': jsonResponse('The gateway is up', HealthResult) },
      },
    },
    '/api/version': {
      get: {
        operationId: 'getVersion',
        summary: 'Build identifier of the running deployment',
        tags: ['system'],
        responses: { '200': jsonResponse('Build identifier', BuildResult) },
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
          '200': jsonResponse('All dependencies serving', ReadyResult),
          '503': errorResponse('Not ready (`not_ready`)'),
        },
      },
    },
  },
};
