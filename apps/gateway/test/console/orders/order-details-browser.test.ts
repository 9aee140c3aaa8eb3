/**
 * The details of the console's order and product pages in Chromium, found by their accessible names: an order's
 * customer by name linking to their page, its refund still listed after dispatch, and a product's specifications
 * edited in the console and shown on the storefront's product page as a definition list. axe-core checks every page.
 * Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { confirmOnOrderPage, signUp, sku } from '../../../../checkout/test/support';
import { paidOrder } from '../../../../checkout/test/refund-support';
import { browserStackForSuite } from '../../support/browser-stack';
import { postConsoleForm, signedInStaff } from '../../support/console';

describe('the console in Chromium: an order page and a product page in detail', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it("shows a dispatched order's refund and customer by name, and a product's specifications", async () => {
    const { stack } = site;
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
    const customer = stack.client();
    const accountId = await signUp(customer);
    const { reference } = await paidOrder(stack, customer);
    await confirmOnOrderPage(customer, reference, site.origin);
    const owner = stack.client();
    await signedInStaff(stack, owner, 'details-browser@shop.test', 'owner');
    const refund = await owner.post(`/api/admin/orders/${reference}/refunds`, {
      amount: 12,
      reason: 'One vial arrived broken',
      lines: [{ sku: sku('low'), quantity: 1 }],
      idempotencyKey: 'browser-refund-1',
    });
    expect(refund.status, refund.text).to.equal(201);
    const dispatched = await postConsoleForm(stack, owner, `/console/orders/${reference}/dispatch`, {
      carrier: 'Royal Mail',
      trackingNumber: 'RM 42',
    });
    expect(dispatched.status, dispatched.text).to.equal(303);

    const context = await site.newContext({ client: owner, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto(`/console/orders/${reference}`);
      await page.getByRole('heading', { name: `Order ${reference}`, level: 1 }).waitFor();
      const refunds = page.getByRole('region', { name: 'Refunds, oldest first' });
      expect(await refunds.getByRole('row', { name: /One vial arrived broken/ }).count()).to.equal(1);
      expect(
        await page
          .getByRole('definition')
          .filter({ hasText: /^Dispatched$/ })
          .count(),
      ).to.equal(1);
      await expectAccessible(page);
      await page.getByRole('link', { name: 'Grace Hopper' }).click();
      await page.waitForURL(`**/console/customers/${accountId}`);
      await page.getByRole('heading', { name: 'Customer Grace Hopper', level: 1 }).waitFor();

      await page.goto('/console/catalog/bpc-157');
      await page
        .getByLabel(/^Specifications, one a line/)
        .fill('Sequence: Gly-Glu-Pro-Pro-Pro-Gly-Lys-Pro-Ala-Asp\nPurity: ≥ 98% (HPLC)\nCAS number: 137525-51-0');
      await page.getByRole('button', { name: 'Save BPC-157' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the product.' }).waitFor();
      await expectAccessible(page);

      await page.goto('/products/bpc-157');
      await page.getByRole('heading', { name: 'Specifications', level: 2 }).waitFor();
      const terms = await page.locator('dl.specifications').getByRole('term').allTextContents();
      expect(terms).to.deep.equal(['Sequence', 'Purity', 'CAS number']);
      expect(await page.getByRole('definition').filter({ hasText: '137525-51-0' }).count()).to.equal(1);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
