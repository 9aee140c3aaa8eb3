/**
 * The busiest public reads (health, stock, products.json), create-checkout and login are answered
 * straight from node:http, ahead of Express, whose router, request and response decoration and
 * middleware chain cost more than these answers themselves. Each is written once as a
 * `DirectRoute` and served two ways: a GET or HEAD (a POST for a POST route) of exactly its path
 * is answered here, with helmet's security headers (computed once at start), the same request
 * line and span route as any other request, and the same Error answers; every other form of the
 * path (a trailing slash, another method, a request the route does not take) goes on to Express,
 * where the same route is mounted from the same declaration (routes.ts), so both ways answer alike.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Response } from 'express';
import helmet from 'helmet';
import type { Logger } from '@storefront/logging';
import { answerAhead, traceDirectRequest } from '@storefront/telemetry';
import { errorAnswer } from './errors';
import { logRequest } from './request-log';

export interface Answer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body?: Buffer;
}

export interface DirectRoute {
  /** The path answered; with `matches`, the route's name in request lines and spans (`/products/{id}`). */
  path: string;
  /** POST for a route that takes a body; otherwise GET and HEAD. */
  method?: 'POST';
  /** Whether the path with a query string is answered here too; otherwise such a request goes on to Express. */
  takesQuery?: boolean;
  /** Other paths this route answers (one with a path parameter). */
  matches?(pathname: string): boolean;
  /** Whether this request is answered here (say, not one asking for Markdown); otherwise it goes on to Express. */
  takes?(request: IncomingMessage): boolean;
  answer(request: IncomingMessage): Promise<Answer> | Answer;
}

export class DirectRoutes {
  private readonly routes = new Map<string, DirectRoute>();
  private readonly posts = new Map<string, DirectRoute>();
  private readonly patterns: DirectRoute[] = [];

  /**
   * Serves `route` directly; its Express route is mounted beside it (by routes.ts, or by the pages
   * that declare it) for what the direct way leaves to it, and both must answer alike.
   */
  add(route: DirectRoute): void {
    if (route.method === 'POST') this.posts.set(route.path, route);
    else if (route.matches) this.patterns.push(route);
    else this.routes.set(route.path, route);
  }

  private routeFor(request: IncomingMessage): DirectRoute | undefined {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    const route =
      request.method === 'POST'
        ? this.posts.get(pathname)
        : (this.routes.get(pathname) ?? this.patterns.find((pattern) => pattern.matches!(pathname)));
    if (!route || (query >= 0 && !route.takesQuery)) return undefined;
    return !route.takes || route.takes(request) ? route : undefined;
  }

  /**
   * Answers these routes on `server` before its request listener (Express) and the HTTP
   * instrumentation see them (answerAhead); traceDirectRequest gives such a request the span,
   * trace context and duration sample that instrumentation gives every other.
   */
  serveAhead(server: Server, logger: Logger): void {
    const securityHeaders = helmetHeaders();
    const logging = logger.isLevelEnabled('info');
    const routeFor = (request: IncomingMessage) => this.routeFor(request);
    const serve = (request: IncomingMessage, response: ServerResponse, route: DirectRoute) => {
      const started = performance.now();
      const answer = () =>
        void answerSafely(route, request, logger)
          .then((answered) => write(response, request.method === 'HEAD', securityHeaders, answered))
          // Only a connection torn down mid-write gets here; there is no one left to answer.
          .catch((error: unknown) => logger.warn({ err: error, path: route.path }, 'could not write an answer'));
      traceDirectRequest(
        request,
        response,
        route.path,
        answer,
        logging ? () => logRequest(logger, request.method!, route.path, response, started) : undefined,
      );
    };
    answerAhead(server, (request, response) => {
      const route =
        request.method === 'GET' || request.method === 'HEAD' || request.method === 'POST'
          ? routeFor(request)
          : undefined;
      if (route) serve(request, response, route);
      return route !== undefined;
    });
  }
}

/** Sends an answer made for the direct way through Express's response, for every other form of a route. */
export function sendAnswer(res: Response, { status, headers, body }: Answer): void {
  res.status(status).set(headers).end(body);
}

async function answerSafely(route: DirectRoute, request: IncomingMessage, logger: Logger): Promise<Answer> {
  try {
    return await route.answer(request);
  } catch (error) {
    return errorAnswer(error, logger, route.path);
  }
}

function write(
  response: ServerResponse,
  headOnly: boolean,
  securityHeaders: string[],
  { status, headers, body }: Answer,
): void {
  const raw: string[] = [];
  // An answer's own header replaces helmet's of the same name (a page's stricter CSP, say).
  for (let index = 0; index < securityHeaders.length; index += 2) {
    if (!(securityHeaders[index]! in headers)) raw.push(securityHeaders[index]!, securityHeaders[index + 1]!);
  }
  for (const [name, value] of Object.entries(headers)) raw.push(name, value);
  if (body) raw.push('Content-Length', String(body.length));
  response.writeHead(status, raw);
  response.end(headOnly ? undefined : body);
}

/** The headers helmet sets on every answer, as a flat name/value list. */
function helmetHeaders(): string[] {
  const headers: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push(name, value),
    removeHeader: () => undefined,
  };
  helmet()({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}
