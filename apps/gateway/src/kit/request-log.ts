/**
 * Per request, once it is answered: names the HTTP span and duration series by route template,
 * and writes one info line (method, route template, status, duration; the logger adds the trace
 * id). Headers, cookies, query strings and bodies are never read here, so no credential can
 * reach the log through this line. Probes (`/api/health`, `/api/ready`) get no line: at one
 * every few seconds per pod they would drown the traffic.
 */
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '@storefront/logging';
import { httpRouteRecorder } from '@storefront/telemetry';

const UNLOGGED_PATHS = new Set(['/api/health', '/api/ready']);

export function requestLog(logger: Logger): RequestHandler {
  // Decided once: with info off, requests pay only for the route name.
  const logging = logger.isLevelEnabled('info');
  return (req, res, next) => {
    const started = performance.now();
    const recordRoute = httpRouteRecorder();
    // 'finish' comes before 'close', where the HTTP instrumentation reads the route.
    res.once('finish', () => {
      const route = routeOf(req);
      if (route) recordRoute(route);
    });
    // 'close' also fires when the client goes away before the answer, which 'finish' would miss.
    if (logging) res.once('close', () => logRequest(logger, req.method, routeOf(req), res, started, req.path));
    next();
  };
}

/** The request line; `path` stands in for a route when none matched. */
export function logRequest(
  logger: Logger,
  method: string,
  route: string | undefined,
  res: ServerResponse,
  started: number,
  path?: string,
): void {
  if (UNLOGGED_PATHS.has(route ?? path ?? '')) return;
  logger.info(
    {
      method,
      ...(route ? { route } : { path }),
      status: res.statusCode,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...(res.writableFinished ? {} : { aborted: true }),
    },
    'request',
  );
}

function routeOf(req: Request): string | undefined {
  return req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : undefined;
}
