/**
 * The shop's own storefront pages, served when no STOREFRONT_ORIGIN takes their place. Handlers
 * stay thin: they read through the same clients and operations as the API routes and render.
 * Failures render as a page with the status the API would answer (never a JSON body to a browser).
 */
import express, { type Express, type Request, type Response } from 'express';
import type { DirectRoutes } from '../kit/direct-routes';
import type { GatewayContext } from '../context';
import type { CatalogCopy } from '../routes/catalog';
import { registerAccountPages, registerResetPasswordPages } from '../account/pages';
import { registerBasketPages } from './basket';
import { registerCheckoutPages } from './checkout';
import type { PageDeps } from './deps';
import { pageErrors } from '../kit/page-errors';
import { formPost } from '../kit/forms';
import { registerCatalogPages } from './catalog-pages';
import { infoPage } from './info';
import { INFO_PAGES, STYLESHEET, STYLESHEET_PATH } from '../kit/layout';
import { registerOrderPages } from './order';
import { registerAddToBasket } from './product';
import { sendPage } from '../kit/respond';
import { shopReader } from './shop';
import { renderSitemap } from './sitemap';

export function registerPages(
  app: Express,
  direct: DirectRoutes,
  context: GatewayContext,
  catalogCopy: CatalogCopy,
): void {
  const router = express.Router({ caseSensitive: true });
  const deps: PageDeps = {
    router,
    context,
    readShop: shopReader(context, catalogCopy),
    send: (req, res, page) => sendPage(req, res, context, page),
    form: formPost(context.config),
  };

  router.get(STYLESHEET_PATH, sendStylesheet);
  registerCatalogPages(deps, direct);
  registerAddToBasket(deps);
  registerBasketPages(deps);
  registerCheckoutPages(deps);
  registerOrderPages(deps);
  registerAccountPages(deps, context);
  for (const { path } of INFO_PAGES)
    router.get(path, async (req, res) => deps.send(req, res, infoPage(path, (await deps.readShop()).policy)));
  router.get('/sitemap.xml', async (_req, res) => {
    const { catalog } = await deps.readShop();
    res
      .set({ 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'public, max-age=300' })
      .send(Buffer.from(renderSitemap(context.config.publicBaseUrl, catalog)));
  });

  router.use(pageErrors(context));
  app.use(router);
}

/**
 * With a storefront origin serving the shop's pages, the shop still serves the pages whose links carry its own
 * tokens (a password reset), so no token reaches the origin.
 */
export function registerCredentialPages(app: Express, context: GatewayContext): void {
  const router = express.Router({ caseSensitive: true });
  router.get(STYLESHEET_PATH, sendStylesheet);
  registerResetPasswordPages(
    { router, send: (req, res, page) => sendPage(req, res, context, page), form: formPost(context.config) },
    context,
  );
  router.use(pageErrors(context));
  app.use(router);
}

function sendStylesheet(_req: Request, res: Response): void {
  res
    .set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable' })
    .send(STYLESHEET);
}
