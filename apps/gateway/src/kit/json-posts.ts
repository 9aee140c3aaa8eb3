/**
 * A POST route that takes a JSON body, answered ahead of Express when the body is plain JSON
 * (kit/direct-routes.ts, takesPlainJson) and in the order of the Express route beside it: the
 * cross-site rule for a request carrying the session cookie, the body, `normalise` (as the
 * route's own middleware does), the OpenAPI schema, then `answer`. `refusal` turns any failure
 * into the route's own answer to it, as the Express route's error handler does.
 */
import type { IncomingMessage } from 'node:http';
import type { GatewayContext } from '../context';
import type { TSchema } from './schema';
import type { Answer, DirectRoutes } from './direct-routes';
import { readJsonBody, takesPlainJson } from './json-body';
import { crossSiteWriteCheck } from './customer-session';

export interface JsonPost<Body> {
  path: string;
  /** The component schema the body must match. */
  schema: TSchema;
  normalise?(body: unknown): void;
  refusal?(error: unknown): unknown;
  answer(request: IncomingMessage, body: Body): Promise<Answer>;
}

export function addJsonPostAhead<Body>(
  direct: DirectRoutes,
  { config, validator }: Pick<GatewayContext, 'config' | 'validator'>,
  route: JsonPost<Body>,
): void {
  const refuseCrossSite = crossSiteWriteCheck(config);
  const refusal = route.refusal ?? ((error: unknown) => error);
  direct.addAheadOfExpress({
    path: route.path,
    method: 'POST',
    takes: takesPlainJson(config.bodyLimitBytes),
    async answer(request) {
      refuseCrossSite(request);
      try {
        const body = await readJsonBody(request);
        route.normalise?.(body);
        validator.check(route.schema, body, 'body');
        return await route.answer(request, body as Body);
      } catch (error) {
        throw refusal(error);
      }
    },
  });
}
