/** `/`: the shop's promises, the research-use-only notice and every product. */
import { html, type Html } from '../kit/html';
import { RESEARCH_USE_NOTICE, SHOP_NAME } from '../kit/layout';
import type { PageAnswer } from '../kit/respond';
import { orderable, stockWords, unitsLeft, type ShopView } from '../application/shop';
import { formatPence } from '../kit/money';
import { photoPicture } from '../kit/photo';

/** What a product whose free units are gone, but whose held units may come back, says on the home page. */
const HELD_ELSEWHERE = 'None free now: held in other baskets';
const TERMS_LINK = html`<a href="/terms">Read the research-use-only terms</a>`;

export function bannerFacts(policy: ShopView['policy'], cutoff: string): string[] {
  return [
    `Free UK shipping on orders of ${formatPence(policy.freeShippingThresholdPence)} and over`,
    `Next-day delivery for orders placed before ${cutoff} UK time on a working day`,
    '99%+ purity verified by HPLC, with a certificate of analysis for every batch',
  ];
}

export function homePage(shop: ShopView, cutoff: string): PageAnswer {
  const { catalog, policy, stock } = shop;
  const products: Html[] = catalog.products.map((product) => {
    const prices = product.sizes.map((size) => size.pricePence);
    const noneFree = product.sizes.every((size) => unitsLeft(size, stock) === 0);
    // Units other baskets hold can still be ordered: the product page says when they are back.
    const words = noneFree
      ? product.sizes.some((size) => orderable(size, shop))
        ? HELD_ELSEWHERE
        : stockWords(0)
      : undefined;
    // Below the facts and the research-use notice: fetched as it nears the viewport.
    const photo =
      product.photo &&
      photoPicture(product.photo, {
        sizes: '(min-width: 60rem) 18rem, (min-width: 36rem) 45vw, 90vw',
        width: 288,
        lazy: true,
        className: 'photo',
      });
    const link = html`<a href="/products/${encodeURIComponent(product.id)}">${product.name}</a>`;
    const price = `${prices.length > 1 ? 'From ' : ''}${formatPence(Math.min(...prices))}`;
    const soldOut = words ? html` <span class="soldout">${words}</span>` : '';
    return html`<li class="card">${photo}<h3>${link}</h3>
<p>${product.description}</p>
<p>${price}${soldOut}</p></li>`;
  });
  return {
    title: 'Research peptides',
    description: `${SHOP_NAME}: research peptides with HPLC-verified purity, shipped from the UK.`,
    caching: 'public',
    main: html`<h1>Research peptides</h1>
<ul class="facts" aria-label="Why order here">${bannerFacts(policy, cutoff).map((fact) => html`<li>${fact}</li>`)}</ul>
<section aria-labelledby="ruo"><h2 id="ruo">Research use only</h2><p>${RESEARCH_USE_NOTICE} ${TERMS_LINK}.</p></section>
<section aria-labelledby="products"><h2 id="products">Products</h2><ul class="products">${products}</ul></section>`,
  };
}
