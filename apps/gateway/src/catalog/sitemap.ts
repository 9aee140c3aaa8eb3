/**
 * /sitemap.xml: every public page (home, products, the short pages) for crawlers; llms.txt lists the same for agents.
 */
import { escapeHtml } from '../kit/html';
import { CERTIFICATES_PAGE, INFO_PAGES } from '../kit/layout';
import type { ShopView } from '../application/shop';

export function publicPagePaths(catalog: ShopView['catalog']): string[] {
  return [
    '/',
    ...catalog.products.map((product) => `/products/${encodeURIComponent(product.id)}`),
    CERTIFICATES_PAGE.path,
    ...INFO_PAGES.map((page) => page.path),
  ];
}

export function renderSitemap(publicBaseUrl: string, catalog: ShopView['catalog']): string {
  const urls = publicPagePaths(catalog).map(
    (path) => `<url><loc>${escapeHtml(new URL(path, publicBaseUrl).href)}</loc></url>`,
  );
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ` +
    `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`
  );
}
