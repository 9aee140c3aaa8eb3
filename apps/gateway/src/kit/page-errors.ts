/** Pages for failures: a page answers a browser with a page, with the status and detail the API would give. */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { GatewayContext } from '../context';
import { bodyRefusal } from './errors';
import { html } from './html';
import { sendPage, type PageAnswer, type PageContext } from './respond';

export function notFoundPage(detail: string): PageAnswer {
  return errorPage(404, 'Not found', detail);
}

export function errorPage(status: number, title: string, detail: string): PageAnswer {
  return {
    status,
    title,
    description: detail,
    caching: 'private',
    main: html`<h1>${title}</h1><p class="error">${detail}</p><p><a href="/">Back to the products</a></p>`,
  };
}

/** The page for a failure the API would answer with an Error, or undefined for anything else (a 500). */
export function errorPageFor(
  error: unknown,
  { logger }: Pick<GatewayContext, 'logger'>,
  path: string,
): PageAnswer | undefined {
  const refused = bodyRefusal(error);
  if (refused) return errorPage(refused.status, 'Request refused', refused.detail);
  if (!(error instanceof AppError)) return undefined;
  if (error.kind === 'internal') logger.error({ err: error, path }, 'internal error from a service');
  const status = HTTP_STATUS[error.kind];
  return errorPage(
    status,
    status >= 500 ? 'Temporarily unavailable' : 'Request refused',
    error.kind === 'internal' ? 'An unexpected error occurred' : error.detail,
  );
}

/** Whether a request for an address nothing answered is a browser's: HTML preferred over JSON, and not the API's. */
function wantsPage(req: Request): boolean {
  const api = req.path === '/api' || req.path.startsWith('/api/');
  return !api && req.accepts(['application/json', 'text/html']) === 'text/html';
}

/**
 * An address nothing answered: a browser gets `pageFor`'s page for it (status 404, in the site's frame) where there is
 * one; an API client (anything that does not prefer HTML to JSON, and any path under /api/) goes on to the Error the
 * rest of the API answers.
 */
export function notFoundPages(context: PageContext, pageFor: (path: string) => PageAnswer | undefined): RequestHandler {
  return (req, res, next) => {
    const page = wantsPage(req) ? pageFor(req.path) : undefined;
    if (!page) return next();
    sendPage(req, res, context, page).catch(next);
  };
}

export function pageErrors(context: PageContext): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const page = errorPageFor(error, context, req.path);
    if (!page) return next(error);
    if (error instanceof AppError && error.retryAfterSeconds !== undefined)
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
    sendPage(req, res, context, page).catch(next);
  };
}
