/**
 * Dispatch in Chromium, as a staff member does it: log in, open a paid order, fill in carrier and
 * tracking number, dispatch, mark delivered; an unpaid order is cancelled from its page. The
 * customer's order page then says how it was sent. axe-core checks every page on the way. Needs
 * Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { expectAccessible } from '@storefront/testing';
import {
  EDGE_PRICES,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  expectCheckout,
  sku,
} from '../../../../checkout/test/support';
import { browserStackForSuite } from '../../support/browser-stack';
import { STAFF_PASSWORD, addStaff, completeSetup, totpCode } from '../../support/console';

describe('dispatch and cancel in Chromium: a staff member works through the orders', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('dispatches and delivers a paid order, cancels an unpaid one on its page; buyers see the carrier', async () => {
    const body = () => checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]);
    const paid = await expectCheckout(site.stack.client(), body());
    await completePayment(paid.hosted_checkout_url, 'pay');
    await site.stack.checkout!.reconcileNow();
    await confirmOnOrderPage(site.stack.client(), paid.checkout_reference, site.origin);
    const unpaid = await expectCheckout(site.stack.client(), body());
    const { secret } = await completeSetup(
      site.stack,
      site.stack.client(),
      await addStaff(site.stack, 'packer@shop.test', 'staff'),
    );

    const context = await site.newContext();
    const page: Page = await context.newPage();
    try {
      await page.goto('/console/login');
      await page.getByLabel('Email', { exact: true }).fill('packer@shop.test');
      await page.getByLabel('Password').fill(STAFF_PASSWORD);
      await page.getByLabel('Authenticator code or recovery code').fill(totpCode(secret, 1));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText('Signed in as packer@shop.test (staff)').waitFor();

      await page.goto(`/console/orders/${paid.checkout_reference}`);
      await expectAccessible(page);
      await page.getByLabel('Carrier').fill('Royal Mail');
      await page.getByLabel('Tracking number (letters, digits, spaces, dashes)').fill('RM 1234-5678 GB');
      await page.getByRole('button', { name: 'Dispatch and email the customer' }).click();
      await page.getByText('with Royal Mail, tracking RM 1234-5678 GB').waitFor();
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Mark delivered' }).click();
      await page
        .getByRole('definition')
        .filter({ hasText: /^Delivered$/ })
        .waitFor();
      expect(await page.getByRole('button', { name: 'Mark delivered' }).count()).to.equal(0);

      await page.goto(`/console/orders/${unpaid.checkout_reference}`);
      await page.getByRole('button', { name: 'Cancel this unpaid order' }).click();
      await page
        .getByRole('definition')
        .filter({ hasText: /^Cancelled$/ })
        .waitFor();
      await expectAccessible(page);

      await page.goto(`/orders/${paid.checkout_reference}`);
      await page.getByText('Dispatched with Royal Mail').waitFor();
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
