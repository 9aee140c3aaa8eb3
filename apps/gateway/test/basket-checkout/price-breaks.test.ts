/**
 * Quantity price breaks priced one way everywhere (decisions 1302, 1304): for random baskets of sizes with breaks,
 * with and without a promo code, the quote (HTTP), the basket page, create-checkout's expected amount and the paid
 * order's receipt all give the total a model of the stated rule gives: per unit, the list price less the largest
 * break reached, rounded half up (never below 1p); the promo on the goods after breaks; shipping from goods after
 * both.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import {
  checkoutBody,
  completePayment,
  expectCheckout,
  newClientAddress,
  signUp,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { eventually } from '../support/held-stock';
import { postForm } from '../support/site-forms';

interface Size {
  size: string;
  pricePence: number;
  breaks: Array<{ minQuantity: number; percentOff: number }>;
}
const PRODUCT = 'break-kit';
// Prices whose breaks round in both directions, one at the 1p floor, and one size without breaks.
const SIZES: Size[] = [
  {
    size: 'a',
    pricePence: 1005,
    breaks: [
      { minQuantity: 3, percentOff: 5 },
      { minQuantity: 5, percentOff: 10 },
    ],
  },
  {
    size: 'b',
    pricePence: 333,
    breaks: [
      { minQuantity: 2, percentOff: 7 },
      { minQuantity: 6, percentOff: 15 },
      { minQuantity: 10, percentOff: 33 },
    ],
  },
  { size: 'c', pricePence: 4999, breaks: [{ minQuantity: 4, percentOff: 12 }] },
  { size: 'd', pricePence: 5, breaks: [{ minQuantity: 2, percentOff: 90 }] },
  { size: 'e', pricePence: 1999, breaks: [] },
];
const skuOf = (size: Size) => `${PRODUCT}-${size.size}`;
const PROMO_BASIS_POINTS = 1000;

/** The stated rule, written out again independently of the code under test. */
function modelUnitPence(size: Size, quantity: number): number {
  const reached = size.breaks.filter((entry) => quantity >= entry.minQuantity).at(-1);
  if (!reached) return size.pricePence;
  return Math.max(1, Math.round((size.pricePence * (100 - reached.percentOff)) / 100 + 1e-9));
}
function modelTotalPence(lines: Array<{ size: Size; quantity: number }>, promo: boolean): number {
  const goods = lines.reduce((sum, line) => sum + modelUnitPence(line.size, line.quantity) * line.quantity, 0);
  const discount = promo ? Math.floor((goods * PROMO_BASIS_POINTS + 5000) / 10_000) : 0;
  return goods - discount + (goods - discount >= 7500 ? 0 : 495);
}

const pounds = (pence: number) => `£${(pence / 100).toFixed(2)}`;
const mainText = (page: string) =>
  /<main id="main">([\s\S]*)<\/main>/
    .exec(page)![1]!
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('gateway: price breaks priced the same by the quote, the basket, create-checkout and the receipt', () => {
  let stack: Stack;
  let buyer: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '100', ORDER_LOOKUPS_PER_ADDRESS_MAX: '1000' });
    await stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: [
          {
            id: PRODUCT,
            name: 'Break kit',
            sizes: SIZES.map((size) => ({
              size: size.size,
              price: size.pricePence / 100,
              priceBreaks: size.breaks,
            })),
          },
        ],
      }),
    );
    await eventually(async () => (await stack.client().get<string>('/')).text.includes('Break kit'));
    buyer = stack.client();
    await signUp(buyer);
  });
  after(async () => stack?.stop());

  it('gives the model’s total everywhere for random baskets; the receipt the unit price after breaks', async () => {
    const basketArbitrary = fc.uniqueArray(
      fc.record({ size: fc.constantFrom(...SIZES), quantity: fc.integer({ min: 1, max: 12 }) }),
      { minLength: 1, maxLength: 3, selector: (line) => line.size.size },
    );
    await fc.assert(
      fc.asyncProperty(basketArbitrary, fc.boolean(), async (lines, promo) => {
        const items = lines.map((line) => ({ sku: skuOf(line.size), quantity: line.quantity }));
        const promoCode = promo ? { promo_code: 'WELCOME10' } : {};
        const expected = modelTotalPence(lines, promo);

        const quote = await stack
          .client()
          .post<{ total_pence: number; lines: Array<{ unit_price_pence: number }> }>(
            '/api/quote',
            { items, ...promoCode },
            { 'x-forwarded-for': newClientAddress() },
          );
        expect(quote.status, quote.text).to.equal(200);
        expect(quote.body.total_pence).to.equal(expected);
        expect(quote.body.lines.map((line) => line.unit_price_pence)).to.deep.equal(
          lines.map((line) => modelUnitPence(line.size, line.quantity)),
        );

        const shopper = stack.client();
        for (const item of items)
          expect(
            (await postForm(shopper, '/basket/add', { sku: item.sku, quantity: String(item.quantity) })).status,
          ).to.equal(303);
        if (promo) expect((await postForm(shopper, '/basket/promo', { promo_code: 'WELCOME10' })).status).to.equal(303);
        const basket = (await shopper.get<string>('/basket')).text;
        expect(basket).to.include(`<th scope="row">Total</th><td class="num"><strong>${pounds(expected)}</strong>`);

        const placed = await expectCheckout(buyer, checkoutBody(expected / 100, items, promoCode));
        expect(placed.order.total).to.equal(expected / 100);
        await completePayment(placed.hosted_checkout_url, 'pay');
        await stack.checkout!.reconcileNow();
        const receipt = await buyer.get<string>(`/orders/${placed.checkout_reference}/receipt`);
        expect(receipt.status, receipt.text).to.equal(200);
        const text = mainText(receipt.text);
        expect(text).to.include(`Total paid ${pounds(expected)}`);
        for (const line of lines) {
          const unit = modelUnitPence(line.size, line.quantity);
          expect(text).to.include(
            `Break kit ${line.size.size} ${line.quantity} ${pounds(unit)} ${pounds(unit * line.quantity)}`,
          );
        }
      }),
      { numRuns: 8 },
    );
  });

  it('refuses create-checkout at the list-price total once a break applies, naming the server’s total', async () => {
    const items = [{ sku: skuOf(SIZES[0]!), quantity: 5 }];
    // 5 × £10.05 = £50.25 at list price; after the 10 % break 5 × £9.05 (904.5 → 905p) = £45.25, + £4.95.
    const res = await stack
      .client()
      .post<{ error: string; detail: string }>('/api/create-checkout', checkoutBody(55.2, items), {
        'x-forwarded-for': newClientAddress(),
      });
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.deep.include({ error: 'amount_mismatch' });
    expect(res.body.detail).to.include('does not match the order total 50.20 (goods 45.25');
  });
});
