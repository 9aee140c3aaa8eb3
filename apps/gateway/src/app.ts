/**
 * The public HTTP surface. Order matters: security headers, the cross-site check for requests
 * carrying the session cookie, then the routes of each area (each parses a JSON body only
 * where its operation takes one, after its session check), then 404 and the error handler
 * that keeps every failure in the contract's Error shape. Paths match case-sensitively:
 * `/API/health` is not `/api/health`.
 */
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { GatewayContext } from './context';
import { DirectRoutes } from './kit/direct-routes';
import { errorHandler, notFoundHandler } from './kit/errors';
import { requestLog } from './kit/request-log';
import { rejectCrossSiteWrites } from './kit/customer-session';
import { RouteInstaller } from './kit/routes';
import { systemApi } from './system/api';
import { accountApi } from './account/api';
import { catalogApi } from './catalog/api';
import { registerCatalogPages } from './catalog/pages';
import { createCatalogCopy } from './application/catalog';
import { shopReader } from './application/shop';
import { registerAccountPages, registerResetPasswordPages } from './account/pages';
import { pageRouter } from './kit/page-router';
import { registerBasketPages } from './basket-checkout/basket';
import { registerCheckoutPages } from './basket-checkout/checkout';
import { registerOrderPages } from './orders/pages';
import { basketCheckoutApi } from './basket-checkout/api';
import { ordersApi } from './orders/api';
import { registerMcpRoutes } from './mcp/route';
import { registerConsole } from './console';
import { registerPublishedRoutes } from './routes/published';

/** The Express app, and the routes served ahead of it (see kit/direct-routes.ts). */
export function createApp(context: GatewayContext): { app: Express; direct: DirectRoutes } {
  const app = express();
  const direct = new DirectRoutes();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  // Only listed proxies may set the client address through X-Forwarded-For.
  app.set('trust proxy', context.config.trustedProxies.length > 0 ? context.config.trustedProxies : false);
  app.use(helmet());
  app.use(requestLog(context.logger));
  app.use(rejectCrossSiteWrites(context.config));

  const api = new RouteInstaller(app, direct, context);
  api.install(systemApi, context);
  api.install(accountApi, context);
  const catalog = createCatalogCopy(context);
  api.install(catalogApi, { ...context, catalog });
  api.install(basketCheckoutApi, context);
  api.install(ordersApi, context);
  registerMcpRoutes(app, context);
  registerConsole(app, api, context, { catalog });
  // The shop's own pages, unless a storefront origin serves them (through the proxy below); the pages whose links carry
  // the shop's own tokens (a password reset) are served either way, so no token reaches the origin.
  const pages = pageRouter(context);
  if (!context.config.storefrontOrigin) {
    const readShop = shopReader(context, catalog);
    registerCatalogPages(pages, { context, readShop, direct });
    registerBasketPages(pages, { context, readShop });
    registerCheckoutPages(pages, { context, readShop });
    registerOrderPages(pages, { context, readShop });
    registerAccountPages(pages, context);
  } else registerResetPasswordPages(pages, context);
  pages.mount(app);
  // Published documents and, when configured, the storefront proxy take what is left.
  registerPublishedRoutes(app, context);

  app.use(notFoundHandler);
  app.use(errorHandler(context.logger));
  return { app, direct };
}
