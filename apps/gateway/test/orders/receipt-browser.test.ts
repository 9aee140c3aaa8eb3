/**
 * A paid order's VAT invoice in Chromium (decision 1292), and a refund's VAT credit note (decision 1293): each reached
 * from the order page by its link, checked by axe-core, with its PDF link. Needs Debian's `chromium` at
 * /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { checkout } from '@storefront/proto';
import { expectAccessible } from '@storefront/testing';
import { OWNER, newKey } from '../../../checkout/test/refund-support';
import {
  DELIVERY,
  EDGE_PRICES,
  checkoutBody,
  completePayment,
  expectCheckout,
  signUp,
  sku,
} from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';

describe("a paid order's receipt in Chromium", function () {
  this.timeout(120_000);
  const site = browserStackForSuite({
    env: {
      SELLER_NAME: 'Storefront Research Supplies Ltd',
      SELLER_ADDRESS: '1 Lab Lane, Cambridge',
      VAT_NUMBER: 'GB123456789',
    },
  });

  it('opens from the order page and is accessible, with buyer and VAT by rate; so does a credit note', async () => {
    const owner = site.stack.client();
    await signUp(owner);
    // 4 × £83.33 = £333.32: over £250, a full VAT invoice.
    const placed = await expectCheckout(
      owner,
      checkoutBody((4 * EDGE_PRICES.p8333) / 100, [{ sku: sku('p8333'), quantity: 4 }]),
    );
    await completePayment(placed.hosted_checkout_url, 'pay');
    await site.stack.checkout!.reconcileNow();

    const context = await site.newContext({ client: owner, cookie: 'svc_sess' });
    const page: Page = await context.newPage();
    try {
      await page.goto(`/orders/${placed.checkout_reference}`);
      await page.getByRole('link', { name: 'Receipt', exact: true }).click();
      await page.waitForURL(`**/orders/${placed.checkout_reference}/receipt`);
      const heading = await page.getByRole('heading', { level: 1 }).innerText();
      expect(heading).to.match(/^VAT invoice R-\d{6}$/);
      expect(await page.getByRole('table', { name: 'VAT by rate' }).innerText()).to.contain('20 %');
      expect(await page.locator('address.buyer').innerText()).to.contain(DELIVERY.name);
      expect(await page.getByRole('link', { name: `${heading} (PDF)` }).getAttribute('href')).to.equal(
        `/orders/${placed.checkout_reference}/receipt.pdf`,
      );
      await expectAccessible(page);

      // One vial refunded: its credit note, linked from the order page.
      const rpc = site.stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
      try {
        await rpc.refundOrder(
          {
            checkoutReference: placed.checkout_reference,
            amountPence: EDGE_PRICES.p8333,
            reason: 'One vial arrived damaged',
            lines: [{ sku: sku('p8333'), quantity: 1 }],
            idempotencyKey: newKey(),
          },
          { staff: OWNER },
        );
      } finally {
        rpc.close();
      }
      await page.goto(`/orders/${placed.checkout_reference}`);
      await page.getByRole('link', { name: /^Credit note C-\d{6}$/ }).click();
      await page.waitForURL(`**/orders/${placed.checkout_reference}/credit-notes/C-*`);
      const note = await page.getByRole('heading', { level: 1 }).innerText();
      expect(note).to.match(/^VAT credit note C-\d{6}$/);
      expect(await page.getByRole('table', { name: 'VAT by rate' }).innerText()).to.contain('£83.33');
      expect(await page.getByRole('link', { name: `${note} (PDF)` }).getAttribute('href')).to.match(
        /\/credit-notes\/C-\d{6}\.pdf$/,
      );
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
