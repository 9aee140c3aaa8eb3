/**
 * One info line per request once it is over: method, route template, status and duration
 * (the logger adds the trace id). Headers, cookies, query strings and bodies are never read
 * here, so no credential can reach the log through this line.
 */
import type { RequestHandler } from 'express';
import type { Logger } from '@storefront/logging';

export function requestLog(logger: Logger): RequestHandler {
  // Decided once: with info off, requests pay for nothing.
  if (!logger.isLevelEnabled('info')) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = performance.now();
    // 'close' also fires when the client goes away before the answer, which 'finish' would miss.
    res.once('close', () => {
      const where = req.route ? { route: `${req.baseUrl}${(req.route as { path: string }).path}` } : { path: req.path };
      logger.info(
        {
          method: req.method,
          ...where,
          status: res.statusCode,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    next();
  };
}
