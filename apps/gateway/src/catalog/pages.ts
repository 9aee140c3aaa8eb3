/**
 * The catalog's pages: `/`, `/products/{id}` and adding a size to the basket, the short pages and the sitemap. The
 * first two are the busiest pages: a browser's request for one is answered ahead of Express like the other hot reads
 * (docs/decisions/0927): the page as last rendered for the same catalog version and stock, or rendered now. Express
 * serves the same routes for everything else (Markdown, other forms of the path) from the same functions.
 */
import type { IncomingMessage } from 'node:http';
import type { DirectRoutes } from '../kit/direct-routes';
import { prefersMarkdown } from '../kit/markdown';
import type { GatewayContext } from '../context';
import type { ShopReader } from '../application/shop';
import { heldWords } from '../application/held-stock';
import { INFO_PAGES } from '../kit/layout';
import { infoPage } from './info';
import { renderSitemap } from './sitemap';
import { errorPageFor } from '../kit/page-errors';
import { homePage } from './home';
import { dispatchNow } from '../application/dispatch';
import { formatCutoff } from '@storefront/dispatch-calendar';
import { productNotFound, productPage, registerAddToBasket } from './product';
import { registerBackInStockPages } from './back-in-stock';
import {
  answerTo,
  prepareHtml,
  PublicPages,
  sendPrepared,
  type PageAnswer,
  type PageRoutes,
  type PreparedPage,
} from '../kit/respond';

const PRODUCT_PATH = /^\/products\/([a-z0-9-]{1,64})$/;

/** A browser's Accept; a client asking for Markdown in any way is left to Express's negotiation. */
const asksForHtmlOnly = (request: IncomingMessage) => !/markdown/i.test(request.headers.accept ?? '');

export function registerCatalogPages(
  routes: PageRoutes,
  { context, readShop, direct }: { context: GatewayContext; readShop: ShopReader; direct: DirectRoutes },
): void {
  const { router, send } = routes;
  const pages = new PublicPages(context.config.seller);
  const cutoff = formatCutoff(context.config.dispatchCalendar.cutoffMinutes);

  async function home(): Promise<{ page: () => PageAnswer; html: () => PreparedPage }> {
    const shop = await readShop();
    const page = () => homePage(shop, cutoff);
    const held = [...shop.held].filter(([, units]) => units.held > 0).map(([sku]) => sku);
    return { page, html: () => pages.html(`/|${shop.version}|${JSON.stringify(shop.stock)}|${held.join(',')}`, page) };
  }

  async function product(id: string): Promise<{ page: () => PageAnswer; html: () => PreparedPage }> {
    const shop = await readShop();
    const found = shop.catalog.products.find((candidate) => candidate.id === id);
    if (!found)
      return { page: () => productNotFound(id), html: () => prepareHtml(productNotFound(id), context.config.seller) };
    // The dispatch words change at most once a minute, so the remembered page is rendered again as often.
    const { words } = dispatchNow(context);
    const page = () => productPage(found, shop, words);
    // What the page says of holds changes with the units held and, as a hold stops being firm, with the time.
    const now = Date.now();
    const stockShown = found.sizes
      .map((size) => `${shop.stock[size.sku] ?? '-'}:${heldWords(shop.held.get(size.sku), now) ?? ''}`)
      .join(',');
    return { page, html: () => pages.html(`/products/${id}|${shop.version}|${stockShown}|${words}`, page) };
  }

  /** The page, or the page for its failure (a catalog not yet read, inventory down) as Express would render it. */
  const directly =
    (path: string, read: () => Promise<{ html: () => PreparedPage }>) => async (request: IncomingMessage) => {
      try {
        return answerTo(request.headers['if-none-match'], (await read()).html());
      } catch (error) {
        const page = errorPageFor(error, context, path);
        if (!page) throw error;
        return prepareHtml(page, context.config.seller);
      }
    };

  direct.add({ path: '/', takes: asksForHtmlOnly, answer: directly('/', home) });
  direct.add({
    path: '/products/{id}',
    matches: (pathname) => PRODUCT_PATH.test(pathname),
    takes: asksForHtmlOnly,
    answer: (request) =>
      directly('/products/{id}', () => product(PRODUCT_PATH.exec((request.url ?? '').split('?')[0]!)![1]!))(request),
  });

  router.get('/', async (req, res) => {
    const { page, html } = await home();
    if (prefersMarkdown(req)) await send(req, res, page());
    else sendPrepared(req, res, html());
  });
  router.get('/products/:id', async (req, res) => {
    const { page, html } = await product(req.params.id!);
    if (prefersMarkdown(req)) await send(req, res, page());
    else sendPrepared(req, res, html());
  });

  registerAddToBasket(routes, readShop, () => dispatchNow(context).words);
  registerBackInStockPages(routes, context, readShop, () => dispatchNow(context).words);
  for (const { path } of INFO_PAGES)
    router.get(path, async (req, res) =>
      send(req, res, infoPage(path, (await readShop()).policy, cutoff, context.config.seller)),
    );
  router.get('/sitemap.xml', async (_req, res) => {
    const { catalog } = await readShop();
    res
      .set({ 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'public, max-age=300' })
      .send(Buffer.from(renderSitemap(context.config.publicBaseUrl, catalog)));
  });
}
