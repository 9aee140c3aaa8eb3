/**
 * The shop's own storefront pages, served when no STOREFRONT_ORIGIN takes their place. Handlers
 * stay thin: they read through the same clients and operations as the API routes and render.
 * Failures render as a page with the status the API would answer (never a JSON body to a browser).
 */
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { GatewayContext } from '../context';
import type { CatalogCopy } from '../routes/catalog';
import { bodyRefusal } from '../http/errors';
import { html } from './html';
import { homePage } from './home';
import { STYLESHEET, STYLESHEET_PATH } from './layout';
import { productPage } from './product';
import { sendPage, type PageAnswer } from './respond';
import { shopReader } from './shop';

export function registerPages(app: Express, context: GatewayContext, catalogCopy: CatalogCopy): void {
  const pages = express.Router({ caseSensitive: true, strict: false });
  const readShop = shopReader(context, catalogCopy);
  const send = (req: Request, res: Response, page: PageAnswer) => sendPage(req, res, context, page);

  pages.get(STYLESHEET_PATH, (_req, res) => {
    res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable' }).send(STYLESHEET);
  });

  pages.get('/', async (req, res) => send(req, res, homePage(await readShop())));

  pages.get('/products/:id', async (req, res) => {
    const shop = await readShop();
    const product = shop.catalog.products.find((candidate) => candidate.id === req.params.id);
    await send(req, res, product ? productPage(product, shop) : notFoundPage(`There is no product ${req.params.id}.`));
  });

  pages.use(pageErrors(context));
  app.use(pages);
}

export function notFoundPage(what: string): PageAnswer {
  return errorPage(404, 'Not found', what);
}

export function errorPage(status: number, title: string, detail: string): PageAnswer {
  return { status, title, description: detail, caching: 'private', main: html`<h1>${title}</h1><p class="error">${detail}</p><p><a href="/">Back to the products</a></p>` };
}

/** A failure on a page is a page too, with the status and detail the API would give. */
function pageErrors(context: GatewayContext): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const refused = bodyRefusal(error);
    if (refused) return void sendPage(req, res, context, errorPage(refused.status, 'Request refused', refused.detail)).catch(next);
    if (!(error instanceof AppError)) return next(error);
    if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
    if (error.kind === 'internal') context.logger.error({ err: error, path: req.path }, 'internal error from a service');
    const status = HTTP_STATUS[error.kind];
    const title = status >= 500 ? 'Temporarily unavailable' : 'Request refused';
    sendPage(req, res, context, errorPage(status, title, error.kind === 'internal' ? 'An unexpected error occurred' : error.detail)).catch(next);
  };
}
