/**
 * `/products/{id}`: each size with its price and live stock, and adding a size to the basket; a sold-out size offers
 * an email when it is back (back-in-stock.ts).
 */
import { specificationList } from '../kit/specifications';
import type { inventory } from '@storefront/proto';
import { BACK_IN_STOCK_CONSENT, LINE_QUANTITY_MAX } from '@storefront/formats';
import { addToBasket, basketOf, parseQuantity, setBasket, BASKET_LINES_MAX } from '../kit/basket-cookie';
import type { ShopReader } from '../application/shop';
import { field, formError } from '../kit/forms';
import { html } from '../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../kit/table';
import { CERTIFICATES_PAGE } from '../kit/layout';
import { notFoundPage } from '../kit/page-errors';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { heldWords } from '../application/held-stock';
import { findSku, orderable, sizeStockWords, unitsLeft, type ShopView } from '../application/shop';
import { formatPence, formatPriceBreaks } from '../kit/money';

import { photoPicture } from '../kit/photo';
import { dispatchNote } from '../kit/dispatch-note';
import { certificatePagePath, certificatePdfPath, formatPurity } from '../application/certificates';

export function productPage(
  product: inventory.Product,
  shop: ShopView,
  dispatchWords: string,
  error?: string,
): PageAnswer {
  const now = Date.now();
  const firstOrderable = product.sizes.findIndex((size) => orderable(size, shop));
  const sizes = product.sizes.map((size, index) => {
    const closed = !orderable(size, shop);
    const words = sizeStockWords(unitsLeft(size, shop.stock), heldWords(shop.held.get(size.sku), now));
    const id = `size-${index}`;
    const state = html`${closed ? html` disabled` : ''}${index === firstOrderable ? html` checked` : ''}`;
    const breaks = size.priceBreaks.length > 0 ? ` (${formatPriceBreaks(size.priceBreaks)})` : '';
    const stock = words ? html`, <span${closed ? html` class="soldout"` : ''}>${words}</span>` : '';
    const radio = html`<input type="radio" name="sku" id="${id}" value="${size.sku}"${state}>`;
    return html`<div class="choice" id="size-${size.sku}">${radio}
<label for="${id}">${size.size}, ${formatPence(size.pricePence)}${breaks}${stock}</label></div>`;
  });
  return {
    title: product.name,
    description: product.description,
    // A refused form is about this visitor's post, so it is not a page to cache.
    caching: error ? 'private' : 'public',
    status: error ? 400 : 200,
    main: html`<h1>${product.name}</h1>
${
  product.photo &&
  photoPicture(product.photo, {
    sizes: '(min-width: 36rem) 32rem, 90vw',
    width: 512,
    lazy: false,
    className: 'photo product-photo',
  })
}
<p>${product.description}</p>
${specificationList(product.specifications)}
${formError(error)}
<form method="post" action="/basket/add">
<fieldset><legend>Size</legend>${sizes}</fieldset>
<label for="quantity">Quantity</label>
<input type="number" id="quantity" name="quantity" value="1" min="1" max="${LINE_QUANTITY_MAX}" required>
<button type="submit"${firstOrderable >= 0 ? '' : html` disabled`}>Add to basket</button>
</form>
${backInStockForms(product, shop)}
${dispatchNote(dispatchWords)}
${batchTable(product, shop.stock)}
<p><a href="/">All products</a></p>`,
  };
}

/** The product page's offer for each sold-out, stock-limited size: one small form per size. */
function backInStockForms(product: inventory.Product, shop: Pick<ShopView, 'stock' | 'held'>) {
  const soldOut = product.sizes.filter((size) => size.stockLimited && !orderable(size, shop));
  if (soldOut.length === 0) return '';
  const forms = soldOut.map(
    (size) => html`<form method="post" action="/back-in-stock" class="alert">
<input type="hidden" name="sku" value="${size.sku}">
<h3>${size.size} is sold out</h3>
<label for="alert-${size.sku}">Your email (leave it empty when signed in)</label>
<input type="email" id="alert-${size.sku}" name="email" autocomplete="email" maxlength="254">
<button type="submit">Email me when it is back</button>
</form>`,
  );
  return html`<h2>Sold out</h2>
<p>${BACK_IN_STOCK_CONSENT.wording}</p>
${forms}`;
}

const BATCHES_HEAD = tableHead(
  headCell('Size'),
  headCell('Batch'),
  numHeadCell('HPLC purity'),
  headCell('Tested'),
  headCell('Certificate'),
);

/** The batch each size on sale is sold from now, with its analysis and certificate. */
function batchTable(product: inventory.Product, stock: Record<string, number>) {
  const rows = product.sizes
    .filter((size) => unitsLeft(size, stock) !== 0)
    .map(({ size, currentBatch: batch }) => {
      if (!batch) return html`<tr><th scope="row">${size}</th><td colspan="4">Certificate on request</td></tr>`;
      const page = html`<a href="${certificatePagePath(batch.number)}">${batch.number}</a>`;
      const pdfName = html`Certificate<span class="vh"> of batch ${batch.number}</span> (PDF)`;
      const certificate = batch.hasCertificate
        ? html`<a href="${certificatePdfPath(batch.number)}" type="application/pdf">${pdfName}</a>`
        : 'Certificate on request';
      const analysis = html`<td class="num">${formatPurity(batch.purityHundredths)}</td><td>${batch.testedOn}</td>`;
      return html`<tr><th scope="row">${size}</th><td>${page}</td>${analysis}<td>${certificate}</td></tr>`;
    });
  if (rows.length === 0) return '';
  const caption = 'Batches now sold';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${BATCHES_HEAD}
<tbody>${rows}</tbody></table>`,
  );
  return html`<h2>Batches now sold</h2>
${table}
<p><a href="${CERTIFICATES_PAGE.path}">Look up a batch number</a></p>`;
}

export const productNotFound = (id: string) => notFoundPage(`There is no product ${id}.`);

export function registerAddToBasket(
  { router, send, form }: PageRoutes,
  readShop: ShopReader,
  dispatchWords: () => string,
): void {
  router.post('/basket/add', ...form, async (req, res) => {
    const shop = await readShop();
    const found = findSku(shop.catalog, field(req, 'sku'));
    if (!found)
      return send(req, res, {
        ...notFoundPage('That size is not in the catalog; choose one on a product page.'),
        status: 400,
      });
    const refuse = (error: string) => send(req, res, productPage(found.product, shop, dispatchWords(), error));
    const quantity = parseQuantity(field(req, 'quantity'));
    if (quantity === undefined) return refuse(`Quantity must be a whole number from 1 to ${LINE_QUANTITY_MAX}.`);
    if (!orderable(found.size, shop)) return refuse(`${found.product.name} ${found.size.size} is sold out.`);
    const basket = addToBasket(basketOf(req), found.size.sku, quantity);
    if (!basket)
      return refuse(`The basket holds at most ${BASKET_LINES_MAX} different items; check out or remove one first.`);
    setBasket(res, basket);
    res.redirect(303, '/basket');
  });
}
