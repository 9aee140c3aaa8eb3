/**
 * Each API route is declared once, in its feature: method, path and the OpenAPI operation that documents it, beside
 * the handler that serves it (docs/decisions/1011). The OpenAPI document is assembled from the declarations
 * (api-docs.ts); `ApiRoutes.install` mounts them on Express with what their schemas imply (the JSON body read and
 * checked, the query checked) and 405 for any other method of their path, and serves the ones declared to be answered
 * ahead of Express (direct-routes.ts) that way too, from the same declaration.
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { GatewayConfig } from '../config';
import { crossSiteWriteCheck } from './customer-session';
import { sendAnswer, type Answer, type DirectRoutes } from './direct-routes';
import { methodNotAllowed } from './errors';
import { jsonBody, readJsonBody, takesPlainJson } from './json-body';
import type { Static, TSchema } from './schema';
import type { Parameter, RequestValidator } from './validator';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'head';

/** The OpenAPI operation a route is documented by; its request body comes from the route's `body`. */
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: readonly Parameter[];
  responses: Record<string, unknown>;
  [extension: `x-${string}`]: unknown;
}

/** The JSON body a route takes. */
export interface Body<S extends TSchema> {
  schema: S;
  /** Whether a request must carry one (`requestBody.required`); true unless said otherwise. */
  required?: boolean;
  /** An example of the body for this operation, beside the schema's own. */
  example?: unknown;
  /** The most bytes read, when not BODY_LIMIT_BYTES. */
  limitBytes?: number;
}

interface Declared {
  method: Method;
  /** The OpenAPI path template: `/api/orders/{checkout_reference}`. */
  path: string;
  operation: Operation;
  body?: Body<TSchema>;
}

/**
 * Served by Express: `before` (a session or staff check), the body read, `normalise`d and checked, the query checked,
 * then `handle`.
 */
export interface ExpressRoute<D, B extends TSchema = TSchema> extends Declared {
  serving: 'express';
  body?: Body<B>;
  before?(deps: D): RequestHandler[];
  normalise?(body: unknown): void;
  handle(deps: D): (req: Request, res: Response, body: Static<B>) => Promise<void> | void;
}

/**
 * A GET answered ahead of Express for exactly its path (direct-routes.ts), and through Express, by the same answer,
 * for every other form of it (a trailing slash, a query string unless `takesQuery`, HEAD).
 */
export interface DirectGet<D> extends Declared {
  serving: 'direct';
  method: 'get';
  takesQuery?: boolean;
  answer(deps: D): (request: IncomingMessage) => Promise<Answer> | Answer;
}

/**
 * A POST of a JSON body, answered ahead of Express when the body is plain JSON (json-body.ts, takesPlainJson) and
 * through Express otherwise, both in the same order: the cross-site rule for a request carrying the session cookie
 * (app-wide on the Express way), the body, `normalise`, the schema, then `answer`; `refusal` turns any failure into
 * the route's own answer to it.
 */
export interface JsonPost<D, B extends TSchema = TSchema> extends Declared {
  serving: 'json-post';
  method: 'post';
  body: Body<B>;
  normalise?(body: unknown): void;
  refusal?(error: unknown): unknown;
  answer(deps: D): (request: IncomingMessage, body: Static<B>) => Promise<Answer>;
}

/** An operation another route serves: HEAD, which Express answers with the GET route. */
export interface DocumentedOnly extends Declared {
  serving: 'none';
}

/** A route of any kind, its body type left behind. */
export type Route<D> = ExpressRoute<D, TSchema> | DirectGet<D> | JsonPost<D, TSchema> | DocumentedOnly;

export function apiRoute<D, B extends TSchema = never>(route: Omit<ExpressRoute<D, B>, 'serving'>): Route<D> {
  return { ...route, serving: 'express' } as unknown as Route<D>;
}

export function directGet<D>(route: Omit<DirectGet<D>, 'serving' | 'method'>): Route<D> {
  return { ...route, method: 'get', serving: 'direct' };
}

export function jsonPost<D, B extends TSchema>(route: Omit<JsonPost<D, B>, 'serving' | 'method'>): Route<D> {
  return { ...route, method: 'post', serving: 'json-post' } as unknown as Route<D>;
}

export function documentedOnly(route: Omit<DocumentedOnly, 'serving'>): DocumentedOnly {
  return { ...route, serving: 'none' };
}

/** What a feature adds to the API: its routes, in the order the reference presents them, and its tags. */
export interface ApiRoutes<D> {
  routes: Array<Route<D>>;
  tags?: Array<{ name: string; description: string }>;
}

/** The OpenAPI operation object of a route. */
export function operationOf({ operation, body }: Declared): Record<string, unknown> {
  if (!body) return { ...operation };
  const media = { schema: body.schema, ...(body.example === undefined ? {} : { example: body.example }) };
  return {
    ...operation,
    requestBody: { required: body.required ?? true, content: { 'application/json': media } },
  };
}

/** Express's form of a path template: `{id}` is `:id`. */
const expressPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/** Mounts declared routes on the Express app and, where declared, ahead of it. */
export class RouteInstaller {
  private readonly installed = new Set<string>();

  constructor(
    private readonly app: Express,
    private readonly direct: DirectRoutes,
    private readonly context: { config: GatewayConfig; validator: RequestValidator },
  ) {}

  install<D>(routes: ApiRoutes<D>, deps: D): void {
    const byPath = new Map<string, Array<Route<D>>>();
    for (const route of routes.routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [path, declared] of byPath) {
      if (this.installed.has(path)) throw new Error(`${path} is declared by two features`);
      this.installed.add(path);
      const mounted = this.app.route(expressPath(path));
      for (const route of declared) {
        if (route.serving === 'none') continue;
        mounted[route.method](...this.handlers(route, deps));
      }
      mounted.all(methodNotAllowed(...declared.map((route) => route.method.toUpperCase())));
    }
  }

  private handlers<D>(route: Exclude<Route<D>, DocumentedOnly>, deps: D): Array<RequestHandler | ErrorRequestHandler> {
    switch (route.serving) {
      case 'direct':
        return [this.directGet(route, deps)];
      case 'json-post':
        return this.jsonPost(route, deps);
      case 'express':
        return this.expressRoute(route, deps);
    }
  }

  private directGet<D>(route: DirectGet<D>, deps: D): RequestHandler {
    const answer = route.answer(deps);
    this.direct.add({ path: route.path, takesQuery: route.takesQuery, answer });
    return async (req, res) => sendAnswer(res, await answer(req));
  }

  private jsonPost<D>(route: JsonPost<D, TSchema>, deps: D): Array<RequestHandler | ErrorRequestHandler> {
    const { config, validator } = this.context;
    const answer = route.answer(deps);
    const check = validator.checker(route.body.schema, 'body');
    const refuseCrossSite = crossSiteWriteCheck(config);
    const refusal = route.refusal ?? ((error: unknown) => error);
    const normalise = route.normalise;
    this.direct.add({
      path: route.path,
      method: 'POST',
      takes: takesPlainJson(config.bodyLimitBytes),
      async answer(request) {
        refuseCrossSite(request);
        try {
          const body = await readJsonBody(request);
          normalise?.(body);
          check(body);
          return await answer(request, body);
        } catch (error) {
          throw refusal(error);
        }
      },
    });
    return [
      jsonBody(route.body.limitBytes ?? config.bodyLimitBytes),
      ...(normalise ? [normaliseBody(normalise)] : []),
      validator.body(route.body.schema),
      async (req: Request, res: Response) => sendAnswer(res, await answer(req, req.body)),
      ...(route.refusal ? [refusedAs(route.refusal)] : []),
    ];
  }

  private expressRoute<D>(route: ExpressRoute<D, TSchema>, deps: D): RequestHandler[] {
    const { config, validator } = this.context;
    const handle = route.handle(deps);
    const query = (route.operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
    return [
      ...(route.before?.(deps) ?? []),
      ...(route.body
        ? [
            jsonBody(route.body.limitBytes ?? config.bodyLimitBytes),
            ...(route.normalise ? [normaliseBody(route.normalise)] : []),
            validator.body(route.body.schema),
          ]
        : []),
      ...(query.length > 0 ? [validator.queryParameters(query)] : []),
      // No body at all counts as an empty object, as the body's check took it.
      async (req: Request, res: Response) => handle(req, res, req.body === undefined ? {} : req.body),
    ];
  }
}

function normaliseBody(normalise: (body: unknown) => void): RequestHandler {
  return (req, _res, next) => {
    normalise(req.body);
    next();
  };
}

function refusedAs(refusal: (error: unknown) => unknown): ErrorRequestHandler {
  return (error: unknown, _req, _res, next) => next(refusal(error));
}
