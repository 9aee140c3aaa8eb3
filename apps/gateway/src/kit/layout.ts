/**
 * The frame every page shares: one h1 per page in <main>, the main navigation (whose link
 * names are part of the interface), the research-use-only notice and the footer of short
 * pages. One small stylesheet, no script, no font, no image.
 */
import { createHash } from 'node:crypto';
import { html, type Html } from './html';
import { SITE_CSS } from './site-css';
import type { Seller } from '@storefront/config';
import { sellerAddress } from './seller';

export const SHOP_NAME = 'Storefront Research Supplies';

/** Its URL carries a hash of its bytes, so it can be cached for a year. */
export const STYLESHEET = Buffer.from(SITE_CSS);
export const STYLESHEET_PATH = `/assets/site-${createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12)}.css`;

export const RESEARCH_USE_NOTICE =
  'All products are sold for laboratory research use only. They are not medicines, not for human or ' +
  'animal consumption, and not for diagnostic or therapeutic use.';

export const INFO_PAGES = [
  { path: '/terms', title: 'Research-use-only terms' },
  { path: '/delivery', title: 'Delivery' },
  { path: '/returns', title: 'Returns' },
  { path: '/privacy', title: 'Privacy' },
] as const;

/** The public look-up of a batch's certificate of analysis, linked from every page's footer. */
export const CERTIFICATES_PAGE = { path: '/certificates', title: 'Certificates of analysis' } as const;

export interface PageContent {
  title: string;
  /** A sentence for search results and link previews. */
  description: string;
  main: Html;
  /** Reload the page after this many seconds (an order awaiting its payment). */
  refreshSeconds?: number;
  /** The console's header and navigation instead of the shop's (no notice, no footer). */
  consoleNavigation?: Html;
  /** Its form ends on the payment provider's hosted page (posted here, then redirected there). */
  leadsToPayment?: boolean;
}

const MAIN_LINKS = [
  html`<li><a href="/">Products</a></li>`,
  html`<li><a href="/basket">Basket</a></li>`,
  html`<li><a href="/account">Account</a></li>`,
];
const INFORMATION_LINKS = [CERTIFICATES_PAGE, ...INFO_PAGES].map(
  (page) => html`<li><a href="${page.path}">${page.title}</a></li>`,
);

/** The page in the shop's frame; its footer names the seller. */
export function layout(
  { title, description, main, refreshSeconds, consoleNavigation }: PageContent,
  seller: Seller,
): string {
  return html`<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} | ${SHOP_NAME}</title>
<meta name="description" content="${description}">
${refreshSeconds === undefined ? '' : html`<meta http-equiv="refresh" content="${refreshSeconds}">`}
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${
  consoleNavigation
    ? html`<header>
<a class="brand" href="/console">${SHOP_NAME} console</a>
${consoleNavigation}
</header>
<main id="main">
${main}
</main>`
    : html`<header>
<a class="brand" href="/">${SHOP_NAME}</a>
<nav aria-label="Main"><ul>${MAIN_LINKS}</ul></nav>
</header>
<aside class="notice" aria-label="Research use only"><p>${RESEARCH_USE_NOTICE}</p></aside>
<main id="main">
${main}
</main>
<footer>
<nav aria-label="Shop information"><ul>${INFORMATION_LINKS}</ul></nav>
${sellerAddress(seller)}
</footer>`
}
</body>
</html>
`.text;
}
