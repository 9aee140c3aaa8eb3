/**
 * The held order's page in Chromium (decision 1221): the statements' form, its refusal naming what is missing and
 * the released order, each checked by axe-core. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { BUYER_CONFIRMATION_STATEMENTS } from '@storefront/formats';
import { expectAccessible } from '@storefront/testing';
import { EDGE_PRICES, checkoutBody, completePayment, expectCheckout, sku } from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';

describe('the buyer confirms a held order on its page in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('shows the two boxes, refuses without them accessibly, and releases the order once both are ticked', async () => {
    const placed = await expectCheckout(
      site.stack.client(),
      checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]),
    );
    await completePayment(placed.hosted_checkout_url, 'pay');
    await site.stack.checkout!.reconcileNow();

    const context = await site.newContext();
    const page: Page = await context.newPage();
    try {
      await page.goto(`/orders/${placed.checkout_reference}`);
      await page.getByRole('heading', { name: 'Confirm to release your order' }).waitFor();
      await expectAccessible(page);

      // Sent as a browser would without its own check of the required boxes, so the server's refusal shows.
      await page.getByRole('checkbox', { name: 'I am 18 or over' }).check();
      await Promise.all([
        page.waitForURL(`**/orders/${placed.checkout_reference}/confirm`),
        page.locator('form[action$="/confirm"]').evaluate((form) => (form as unknown as { submit(): void }).submit()),
      ]);
      const alert = page.getByRole('alert');
      expect(await alert.innerText()).to.contain('These products are for laboratory research use only');
      const missing = page.getByRole('checkbox', { name: BUYER_CONFIRMATION_STATEMENTS[0].label });
      expect(await missing.getAttribute('aria-invalid')).to.equal('true');
      await expectAccessible(page);

      for (const { label } of BUYER_CONFIRMATION_STATEMENTS) await page.getByRole('checkbox', { name: label }).check();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.waitForURL(`**/orders/${placed.checkout_reference}`);
      expect(await page.getByRole('heading', { name: 'Confirm to release your order' }).count()).to.equal(0);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
