/**
 * End to end in a real browser: a checkout prepared through the gateway, the hosted payment
 * link opened in Chromium, Pay clicked by "a person", and the order seen paid with its points.
 * Needs Debian's `chromium` package at /usr/bin/chromium; without it this test fails, it does
 * not skip.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium } from '@storefront/testing';
import { type Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  expectCheckout,
  loyaltyPoints,
  signUp,
  startCheckoutStack,
} from '../../../checkout/test/support';

describe('checkout in a browser: hosted payment page through to points', () => {
  let stack: Stack;
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
    stack = await startCheckoutStack();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a person pays on the hosted page; the order is paid and the customer earns points', async () => {
    const customer = stack.client();
    await signUp(customer);
    // bpc-157-5mg × 2 + ghk-cu-50mg = £69.97 goods (69 points) + £4.95 shipping.
    const body = checkoutBody(
      74.92,
      [
        { sku: 'bpc-157-5mg', quantity: 2 },
        { sku: 'ghk-cu-50mg', quantity: 1 },
      ],
      {
        return_url: `${stack.gateway.url}/api/payments/events`,
      },
    );
    const checkout = await expectCheckout(customer, body);
    expect(checkout.order_saved).to.equal(true);

    const page = await browser.newPage();
    try {
      await page.goto(checkout.hosted_checkout_url);
      const pay = page.getByRole('button', { name: 'Pay £74.92' });
      expect(await pay.isVisible()).to.equal(true);
      expect(await page.getByRole('button', { name: 'Decline' }).isVisible()).to.equal(true);
      await pay.click();
      await page.getByText('Payment successful').waitFor({ timeout: 10_000 });
    } finally {
      await page.close();
    }

    const replay = await expectCheckout(customer, body);
    expect(replay.order.status).to.equal('paid');
    expect(await loyaltyPoints(customer)).to.equal(100 + 69);
  });
});
