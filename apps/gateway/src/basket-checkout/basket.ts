/**
 * `/basket`: the lines, quantities, remove, a promo code and the totals. Every figure is
 * checkout's QuoteOrder answer (the pricing create-checkout charges by); the page only prints it
 * (docs/decisions/0920).
 */
import type { Request, Response } from 'express';
import type { checkout } from '@storefront/proto';
import { LINE_QUANTITY_MAX } from '@storefront/formats';
import type { GatewayContext } from '../context';
import { validatePromo } from '../application/place-order';
import { basketOf, isPromoCode, parseQuantity, setBasket, type Basket } from '../kit/basket-cookie';
import { callerOf } from '../kit/caller';
import { field, formError } from '../kit/forms';
import { html, type Html } from '../kit/html';
import { headCell, numHeadCell, tableHead } from '../kit/table';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { heldWords } from '../application/held-stock';
import { findSku, sizeStockWords, type ShopReader, type ShopView } from '../application/shop';
import { formatDiscount, formatPence } from '../kit/money';
import { dispatchNote } from '../kit/dispatch-note';
import { dispatchNow } from '../application/dispatch';

/** What the basket and checkout pages read through. */
export interface ShopDeps {
  context: GatewayContext;
  readShop: ShopReader;
}

export interface BasketView {
  basket: Basket;
  /** Undefined for an empty basket. */
  quote?: checkout.QuoteOrderResponse;
  stock: ShopView['stock'];
  held: ShopView['held'];
  policy: ShopView['policy'];
  /** When an order placed now would leave (application/dispatch.ts). */
  dispatchWords: string;
  error?: string;
}

const BROWSE_LINK = html`<p><a href="/">Browse the products</a></p>`;
const ITEMS_HEAD = tableHead(headCell('Item'), headCell('Quantity'), numHeadCell('Line total'));
const QUANTITY_RULES = html`min="1" max="${LINE_QUANTITY_MAX}" required`;
const quietButton = (label: string, attributes: Html | '' = '') =>
  html`<button type="submit" class="quiet"${attributes}>${label}</button>`;
const UPDATE_BUTTON = quietButton('Update');
const REMOVE_BUTTON = quietButton('Remove', html` formaction="/basket/remove" formnovalidate`);

export function basketPage(
  { basket, quote, stock, held, policy, dispatchWords, error }: BasketView,
  status = 200,
): PageAnswer {
  const page = { title: 'Basket', description: 'Your basket', caching: 'private' as const, status };
  if (!quote) {
    return {
      ...page,
      main: html`<h1>Basket</h1>${formError(error)}<p>Your basket is empty.</p>${BROWSE_LINK}`,
    };
  }
  const now = Date.now();
  const rows = quote.lines.map((line, index) => {
    const left = stock[line.sku];
    const short =
      left !== undefined && left < line.quantity
        ? html` <span class="soldout block">${shortWords(left, heldWords(held.get(line.sku), now))}</span>`
        : '';
    // Three columns so a line fits 320 px; Remove shares the line's one form (formaction), which also
    // keeps the cell one block, so the Markdown answer stays a table.
    const each = html`<span class="each">${formatPence(line.unitPricePence)} each</span>`;
    const id = `quantity-${index}`;
    const input = html`<input type="number" id="${id}" name="quantity" value="${line.quantity}" ${QUANTITY_RULES}>`;
    return html`<tr><th scope="row">${line.productName} ${line.size} ${each}${short}</th>
<td class="quantity"><form method="post" action="/basket/update"><input type="hidden" name="sku" value="${line.sku}">
<label for="${id}" class="vh">Quantity</label>${input}
${UPDATE_BUTTON} ${REMOVE_BUTTON}</form></td>
<td class="num">${formatPence(line.unitPricePence * line.quantity)}</td></tr>`;
  });
  const promoState = quote.promoCode
    ? html`<p class="ok">Promo code ${quote.promoCode} applied.</p>`
    : basket.promoCode && quote.promoRefusal
      ? html`<p class="error">Promo code ${basket.promoCode} ${quote.promoRefusal}, so it is not applied.</p>`
      : '';
  const typedCode = basket.promoCode ?? '';
  const shipping = quote.shippingPence === 0 ? 'Free' : formatPence(quote.shippingPence);
  return {
    ...page,
    main: html`<h1>Basket</h1>
${formError(error)}
<table><caption>Items in your basket</caption>
${ITEMS_HEAD}
<tbody>${rows}</tbody></table>
<form method="post" action="/basket/promo">
<label for="promo_code">Promo code</label>
<input type="text" id="promo_code" name="promo_code" value="${typedCode}" maxlength="64" autocomplete="off">
<button type="submit">Apply</button>
</form>
${promoState}
<h2>Order total</h2>
<table class="totals"><tbody>
<tr><th scope="row">Goods</th><td class="num">${formatPence(quote.goodsPence)}</td></tr>
<tr><th scope="row">Discount</th><td class="num">${formatDiscount(quote.discountPence)}</td></tr>
<tr><th scope="row">Shipping</th><td class="num">${shipping}</td></tr>
<tr><th scope="row">Total</th><td class="num"><strong>${formatPence(quote.totalPence)}</strong></td></tr>
</tbody></table>
<p class="free-shipping">${freeShippingWords(quote, policy.freeShippingThresholdPence)}</p>
${dispatchNote(dispatchWords)}
<form method="get" action="/checkout"><button type="submit">Checkout</button></form>`,
  };
}

/**
 * How far the basket is from free shipping, which counts the goods after any discount: a code that takes the goods
 * below the threshold adds the shipping back, and the basket says so rather than leaving the total to surprise.
 */
export function freeShippingWords(
  quote: { goodsPence: number; discountPence: number; shippingPence: number },
  thresholdPence: number,
): string {
  const terms = `free UK shipping on orders of ${formatPence(thresholdPence)} and over, after any discount`;
  if (quote.shippingPence === 0) return `Your order has ${terms}.`;
  const more = `Add ${formatPence(thresholdPence - (quote.goodsPence - quote.discountPence))} more for ${terms}`;
  return quote.discountPence > 0 && quote.goodsPence >= thresholdPence
    ? `${more}: your discount takes the order below it, so ${formatPence(quote.shippingPence)} shipping is added.`
    : `${more}.`;
}

/** A line short of stock: "Only 2 left", "Sold out", with what other baskets hold of it. */
function shortWords(left: number, heldText: string | undefined): string {
  if (left === 0) return sizeStockWords(0, heldText)!;
  return heldText ? `Only ${left} left; ${heldText}` : `Only ${left} left`;
}

/**
 * The basket priced by checkout for the request's caller (a reward code is the account's own).
 * Lines whose SKU left the catalog are dropped rather than failing the page.
 */
export async function basketView(
  req: Request,
  res: Response,
  { context, readShop }: ShopDeps,
  basket: Basket = basketOf(req),
  error?: string,
): Promise<BasketView> {
  const { catalog, stock, held, policy } = await readShop();
  const lines = basket.lines.filter((line) => findSku(catalog, line.sku));
  const known = { ...basket, lines };
  const { words: dispatchWords } = dispatchNow(context);
  if (lines.length === 0) return { basket: known, stock, held, policy, dispatchWords, error };
  const caller = await callerOf(req, res, context);
  const quote = await context.clients.checkout.quoteOrder(
    { items: lines, promoCode: basket.promoCode, clientAddress: caller.clientAddress },
    { customer: caller.customer },
  );
  return { basket: known, quote, stock, held, policy, dispatchWords, error };
}

export function registerBasketPages({ router, form, send }: PageRoutes, deps: ShopDeps): void {
  const { context } = deps;
  /** The basket again with the problem named, as a 400: nothing was changed. */
  const refuse = async (req: Request, res: Response, error: string) =>
    send(req, res, basketPage(await basketView(req, res, deps, undefined, error), 400));
  const saveAndShow = (res: Response, basket: Basket) => {
    setBasket(res, basket);
    res.redirect(303, '/basket');
  };

  router.get('/basket', async (req, res) => send(req, res, basketPage(await basketView(req, res, deps))));

  router.post('/basket/update', ...form, async (req, res) => {
    const basket = basketOf(req);
    const quantity = parseQuantity(field(req, 'quantity'));
    if (quantity === undefined)
      return refuse(req, res, `Quantity must be a whole number from 1 to ${LINE_QUANTITY_MAX}.`);
    saveAndShow(res, {
      ...basket,
      lines: basket.lines.map((line) => (line.sku === field(req, 'sku') ? { ...line, quantity } : line)),
    });
  });

  router.post('/basket/remove', ...form, (req, res) => {
    const basket = basketOf(req);
    saveAndShow(res, { ...basket, lines: basket.lines.filter((line) => line.sku !== field(req, 'sku')) });
  });

  // Checked at once with the same operation as GET /api/validate-promo; an empty code removes it.
  router.post('/basket/promo', ...form, async (req, res) => {
    const basket = basketOf(req);
    const code = field(req, 'promo_code').trim();
    if (code === '') return saveAndShow(res, { lines: basket.lines });
    const checked = isPromoCode(code)
      ? await validatePromo(context, code, await callerOf(req, res, context))
      : { valid: false, code };
    if (!checked.valid) return refuse(req, res, `Promo code ${code} is not valid.`);
    saveAndShow(res, { ...basket, promoCode: checked.code });
  });
}
