/** `/products/{id}`: each size with its price and live stock, and adding a size to the basket. */
import type { inventory } from '@storefront/proto';
import { LINE_QUANTITY_MAX } from '@storefront/formats';
import { html } from './html';
import type { PageAnswer } from './respond';
import { formatPence, stockWords, unitsLeft, type ShopView } from './shop';

export function productPage(product: inventory.Product, { stock }: ShopView): PageAnswer {
  const sizes = product.sizes.map((size, index) => {
    const left = unitsLeft(size, stock);
    const soldOut = left === 0;
    const words = stockWords(left);
    const id = `size-${index}`;
    return html`<div class="choice"><input type="radio" name="sku" id="${id}" value="${size.sku}"${soldOut ? html` disabled` : ''}${index === firstAvailable(product, stock) ? html` checked` : ''}>
<label for="${id}">${size.size}, ${formatPence(size.pricePence)}${words ? html`, <span${soldOut ? html` class="soldout"` : ''}>${words}</span>` : ''}</label></div>`;
  });
  const anyAvailable = firstAvailable(product, stock) >= 0;
  return {
    title: product.name,
    description: product.description,
    caching: 'public',
    main: html`<h1>${product.name}</h1>
<p>${product.description}</p>
<form method="post" action="/basket/add">
<fieldset><legend>Size</legend>${sizes}</fieldset>
<label for="quantity">Quantity</label>
<input type="number" id="quantity" name="quantity" value="1" min="1" max="${LINE_QUANTITY_MAX}" required>
<button type="submit"${anyAvailable ? '' : html` disabled`}>Add to basket</button>
</form>
<p><a href="/">All products</a></p>`,
  };
}

function firstAvailable(product: inventory.Product, stock: Record<string, number>): number {
  return product.sizes.findIndex((size) => unitsLeft(size, stock) !== 0);
}
