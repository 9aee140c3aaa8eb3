/**
 * The public HTTP surface, composed of the features. Order matters: security headers, the cross-site check for
 * requests carrying the session cookie, then the features' routes (each parses a JSON body only where its operation
 * takes one, after its session check) and pages, then 404 and the error handler that keeps every failure in the
 * contract's Error shape. Paths match case-sensitively: `/API/health` is not `/api/health`.
 */
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { GatewayContext } from './context';
import { createCatalogCopy } from './application/catalog';
import { shopReader } from './application/shop';
import type { OpenApiDocument } from './kit/api-docs';
import { rejectCrossSiteWrites } from './kit/customer-session';
import { DirectRoutes } from './kit/direct-routes';
import { errorHandler, notFoundHandler } from './kit/errors';
import { notFoundPage, notFoundPages } from './kit/page-errors';
import { pageRouter } from './kit/page-router';
import { requestLog } from './kit/request-log';
import { RouteInstaller } from './kit/routes';
import { accountApi } from './account/api';
import { registerAccountPages, registerResetPasswordPages } from './account/pages';
import { dataRightsApi } from './account/data-rights-api';
import { registerDataRightsPages } from './account/data-rights-pages';
import { registerBackInStockLinkPages } from './catalog/back-in-stock';
import { basketCheckoutApi } from './basket-checkout/api';
import { registerBasketPages } from './basket-checkout/basket';
import { registerCheckoutPages } from './basket-checkout/checkout';
import { catalogApi } from './catalog/api';
import { certificatesApi } from './certificates/api';
import { registerCertificatePages } from './certificates/pages';
import { registerCatalogPages } from './catalog/pages';
import { registerMedia } from './catalog/media';
import { registerConsole } from './console';
import { consoleNotFoundPage } from './console/frame';
import { MCP_PATH, registerMcpRoutes } from './mcp/route';
import { ApiSchemas } from './mcp/schemas';
import { buildTools } from './mcp/tools';
import { ordersApi } from './orders/api';
import { registerOrderPages } from './orders/pages';
import { publishedApi } from './published/api';
import { createStorefrontProxy } from './published/storefront-proxy';
import { systemApi } from './system/api';

/**
 * The Express app, and the routes served ahead of it (see kit/direct-routes.ts). `document` is the OpenAPI document
 * of every feature's routes (api.ts), which the MCP tools and the published documents are made from.
 */
export function createApp(context: GatewayContext, document: OpenApiDocument): { app: Express; direct: DirectRoutes } {
  const { config } = context;
  const app = express();
  const direct = new DirectRoutes();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  // Only listed proxies may set the client address through X-Forwarded-For.
  app.set('trust proxy', config.trustedProxies.length > 0 ? config.trustedProxies : false);
  app.use(helmet());
  app.use(requestLog(context.logger));
  app.use(rejectCrossSiteWrites(config));

  const api = new RouteInstaller(app, direct, context);
  const catalog = createCatalogCopy(context);
  api.install(systemApi, context);
  api.install(accountApi, context);
  api.install(dataRightsApi, context);
  api.install(catalogApi, { ...context, catalog });
  api.install(basketCheckoutApi, context);
  api.install(ordersApi, context);
  api.install(certificatesApi, context);
  const tools = buildTools(context, new ApiSchemas(document));
  registerMcpRoutes(app, context, tools);
  registerConsole(app, api, context, { catalog });

  // The shop's own pages, unless a storefront origin serves them (through the proxy below); the pages whose links carry
  // the shop's own tokens (a password reset) are served either way, so no token reaches the origin.
  const pages = pageRouter(context);
  const readShop = shopReader(context, catalog);
  if (!config.storefrontOrigin) {
    registerCatalogPages(pages, { context, readShop, direct });
    registerBasketPages(pages, { context, readShop });
    registerCheckoutPages(pages, { context, readShop });
    registerOrderPages(pages, { context, readShop });
    registerAccountPages(pages, context);
  } else registerResetPasswordPages(pages, context);
  // Served either way: marketing mails' unsubscribe links carry the shop's own token.
  registerDataRightsPages(pages, context);
  // Served either way: back-in-stock mails' confirm and unsubscribe links carry the shop's own token.
  registerBackInStockLinkPages(pages, context);
  // Served either way: the catalog's and the API's certificate links point here.
  registerCertificatePages(pages, { context, readShop });
  pages.mount(app);
  // Served either way: product photos, which the console shows too.
  registerMedia(app, context);

  api.install(publishedApi, { ...context, published: { document, mcp: { path: MCP_PATH, tools } } });
  // What no route answered is the storefront's, but for the paths the shop keeps to itself (the proxy says which).
  if (config.storefrontOrigin) {
    app.use(
      createStorefrontProxy({
        origin: config.storefrontOrigin,
        timeoutMs: config.proxyTimeoutMs,
        markdown: context.markdown,
        maxHtmlBytes: config.markdownMaxHtmlBytes,
        logger: context.logger,
      }),
    );
  }

  // An address nothing answered: a browser gets a page in the console's frame or the shop's (when the shop serves its
  // own pages), anything else the Error.
  app.use(
    notFoundPages(context, (path) => {
      if (path === '/console' || path.startsWith('/console/')) return consoleNotFoundPage(path);
      return config.storefrontOrigin ? undefined : notFoundPage(`There is no page at ${path}.`);
    }),
  );
  app.use(notFoundHandler);
  app.use(errorHandler(context.logger));
  return { app, direct };
}
