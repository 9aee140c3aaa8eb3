/**
 * Liveness, readiness and the build identifier. Public: ready or not, nothing about what stands behind the gateway
 * (operators read which dependency is down on the admin port's /ready).
 */
import { errorBody } from '@storefront/errors';
import type { GatewayContext } from '../context';
import { errorResponse, jsonResponse } from '../kit/api-docs';
import { apiRoute, directGet, type ApiRoutes } from '../kit/routes';
import { component, Type } from '../kit/schema';

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

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

export const systemApi: ApiRoutes<GatewayContext> = {
  tags: [{ name: 'system', description: 'Liveness, readiness and the build identifier.' }],
  routes: [
    directGet({
      path: '/api/health',
      operation: {
        operationId: 'getHealth',
        summary: 'Liveness: the gateway process answers',
        tags: ['system'],
        responses: { '200': jsonResponse('The gateway is up', HealthResult) },
      },
      answer: () => () => ({
        status: 200,
        headers: JSON_TYPE,
        body: Buffer.from(JSON.stringify({ status: 'ok', time: new Date().toISOString() })),
      }),
    }),
    apiRoute({
      method: 'get',
      path: '/api/version',
      operation: {
        operationId: 'getVersion',
        summary: 'Build identifier of the running deployment',
        tags: ['system'],
        responses: { '200': jsonResponse('Build identifier', BuildResult) },
      },
      handle: ({ config }) => {
        const version = { build: config.buildId };
        return (_req, res) => {
          res.json(version);
        };
      },
    }),
    apiRoute({
      method: 'get',
      path: '/api/ready',
      operation: {
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
      handle:
        ({ readiness }) =>
        async (_req, res) => {
          const { ready } = await readiness.check();
          if (!ready) {
            res.status(503).json(errorBody('not_ready', 'The service is not ready; try again shortly'));
            return;
          }
          res.json({ status: 'ready' });
        },
    }),
  ],
};
