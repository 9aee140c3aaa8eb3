/**
 * The dispatch queue in Chromium, as a packer uses it: tick two orders by their accessible names, open the dispatch
 * form, give each a carrier and tracking number, dispatch; the answer lists both, and the queue no longer shows them;
 * an order its customer cancels while the form is open is refused with the reason.
 * axe-core checks every page on the way. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import {
  EDGE_PRICES,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  countRows,
  expectCheckout,
  orderNumberOf,
  sku,
} from '../../../../checkout/test/support';
import { browserStackForSuite } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';

describe('the dispatch queue in Chromium: two orders selected and dispatched together', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('selects two orders by name, dispatches each with a carrier and tracking number, lists both as sent', async () => {
    const paidOrder = async () => {
      const created = await expectCheckout(
        site.stack.client(),
        checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]),
      );
      await completePayment(created.hosted_checkout_url, 'pay');
      await site.stack.checkout!.reconcileNow();
      await confirmOnOrderPage(site.stack.client(), created.checkout_reference, site.origin);
      return {
        reference: created.checkout_reference,
        number: await orderNumberOf(site.stack, created.checkout_reference),
      };
    };
    const [first, second, left] = [await paidOrder(), await paidOrder(), await paidOrder()];
    const packer = site.stack.client();
    await signedInStaff(site.stack, packer, 'queue-packer@shop.test', 'staff');

    const context = await site.newContext({ client: packer, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console/orders');
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Awaiting dispatch' }).click();
      await page.getByRole('heading', { name: 'Awaiting dispatch' }).waitFor();
      await expectAccessible(page);
      await page.getByRole('checkbox', { name: `Select ${first.number}` }).check();
      await page.getByRole('checkbox', { name: `Select ${second.number}` }).check();
      await page.getByRole('button', { name: 'Dispatch selected orders' }).click();

      await page.getByRole('heading', { name: 'Dispatch selected orders' }).waitFor();
      await expectAccessible(page);
      expect(await page.getByLabel(`Carrier for ${left.number}`).count()).to.equal(0);
      for (const [index, { number }] of [first, second].entries()) {
        await page.getByLabel(`Carrier for ${number}`).fill('Royal Mail');
        await page.getByLabel(`Tracking number for ${number}`).fill(`RM ${index + 1}0-GB`);
      }
      await page.getByRole('button', { name: 'Dispatch 2 orders and email the customers' }).click();

      await page.getByRole('heading', { name: 'Dispatched (2)' }).waitFor();
      await page.getByText(`${first.number}: with Royal Mail, tracking RM 10-GB`).waitFor();
      await page.getByText(`${second.number}: with Royal Mail, tracking RM 20-GB`).waitFor();
      await page.getByRole('heading', { name: 'Not dispatched (0)' }).waitFor();
      await expectAccessible(page);

      await page.getByRole('link', { name: 'Back to the orders awaiting dispatch' }).click();
      await page.getByRole('checkbox', { name: `Select ${left.number}` }).waitFor();
      expect(await page.getByRole('checkbox', { name: `Select ${first.number}` }).count()).to.equal(0);
      for (const { reference } of [first, second])
        expect(await countRows(site.stack, 'mail_outbox', { mail_key: `dispatch:${reference}` })).to.equal(1);

      // The third is chosen, then cancelled by its customer before the form is sent: refused, with the reason.
      await page.getByRole('checkbox', { name: `Select ${left.number}` }).check();
      await page.getByRole('button', { name: 'Dispatch selected orders' }).click();
      await page.getByLabel(`Carrier for ${left.number}`).fill('DPD');
      await page.getByLabel(`Tracking number for ${left.number}`).fill('DPD 3');
      const cancelled = await site.stack.client().request('POST', `/orders/${left.reference}/cancel`, {
        body: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site.origin },
      });
      expect(cancelled.status).to.equal(303);
      await page.getByRole('button', { name: 'Dispatch 1 order and email the customers' }).click();
      await page.getByRole('alert').getByText('was cancelled by its customer').waitFor();
      await page.getByRole('heading', { name: 'Dispatched (0)' }).waitFor();
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
