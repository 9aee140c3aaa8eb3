/**
 * Money is shown one way on every page the gateway renders (kit/money.ts): a discount with the minus sign of what it
 * takes off, on the basket, the checkout form, the order page and the console's order page alike.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { EDGE_PRODUCT, checkoutBody, expectCheckout, sku, startCheckoutStack } from '../../checkout/test/support';
import { signedInStaff } from './support/console';
import { postForm } from './support/site-forms';

// One line of 83.33 with WELCOME10: 8.33 off, 75.00 in all (shipping is free from 75).
const DISCOUNT = '\u2212£8.33';

describe('gateway: a discount is shown with its minus sign on every page', () => {
  let stack: Stack;
  let reference: string;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '100' });
    // The gateway's catalog copy catches up with the test product within the refresh interval.
    for (let attempt = 0; !(await stack.client().get<string>('/')).text.includes(EDGE_PRODUCT); attempt += 1) {
      expect(attempt, 'the test product shows within 2.5 s').to.be.below(50);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const placed = await expectCheckout(
      stack.client(),
      checkoutBody(75, [{ sku: sku('p8333'), quantity: 1 }], { promo_code: 'WELCOME10' }),
    );
    expect(placed.order.discount).to.equal(8.33);
    reference = placed.checkout_reference;
  });
  after(async () => stack?.stop());

  it('on the basket and the checkout form', async () => {
    const shopper = stack.client();
    expect((await postForm(shopper, '/basket/add', { sku: sku('p8333'), quantity: '1' })).status).to.equal(303);
    expect((await postForm(shopper, '/basket/promo', { promo_code: 'WELCOME10' })).status).to.equal(303);
    const basket = (await shopper.get<string>('/basket')).text;
    expect(basket).to.include(`<th scope="row">Discount</th><td class="num">${DISCOUNT}</td>`);
    const checkout = (await shopper.get<string>('/checkout')).text;
    expect(checkout).to.include(`discount ${DISCOUNT} (WELCOME10)`);
  });

  it('on the order page', async () => {
    const page = await stack.client().get<string>(`/orders/${encodeURIComponent(reference)}`);
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.include(`<th scope="row">Discount</th><td class="num">${DISCOUNT}</td>`);
  });

  it("on the console's order page", async () => {
    const staff = stack.client();
    await signedInStaff(stack, staff, 'owner@shop.test');
    const page = await staff.get<string>(`/console/orders/${encodeURIComponent(reference)}`);
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.include(`<dt>Discount</dt><dd>${DISCOUNT}</dd>`);
  });
});
