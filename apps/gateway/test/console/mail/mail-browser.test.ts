/**
 * The console's mail log in Chromium, for a staff-role member: after an order is placed its confirmation is in the
 * log, found by the customer's address, and its preview shows the mail's text; axe finds no serious or critical
 * violation on either page, and both fit a 320 px wide screen. Needs Debian's `chromium`.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { sku } from '../../../../checkout/test/support';
import { paidOrder } from '../../../../checkout/test/refund-support';
import { browserStackForSuite, expectNoSidewaysScroll } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';

describe('the console mail log in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('finds the confirmation of an order just placed and reads its preview, at 320 px too', async () => {
    await site.stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
    const staff = site.stack.client();
    await signedInStaff(site.stack, staff, 'mail-browser@shop.test', 'staff');
    const { reference } = await paidOrder(site.stack);
    const context = await site.newContext({ client: staff, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console');
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Mail log' }).click();
      await page.getByRole('heading', { name: 'Mail log' }).waitFor();
      await page.getByLabel("Recipient's email").fill('ada@example.com');
      await page.getByRole('button', { name: 'Search' }).click();
      const log = page.getByRole('table', { name: 'Mails, newest first' });
      const confirmation = log.getByRole('row').filter({ hasText: 'order-confirmation' });
      expect(await confirmation.count()).to.equal(1);
      expect(await confirmation.getByRole('cell', { name: 'ada@example.com' }).count()).to.equal(1);
      await expectAccessible(page);

      await confirmation.getByRole('link').click();
      await page.getByRole('heading', { level: 2, name: 'Text' }).waitFor();
      expect(await page.locator('pre.mail-text').textContent()).to.include(reference);
      await expectAccessible(page);

      await page.setViewportSize({ width: 320, height: 640 });
      await expectNoSidewaysScroll(page);
      await page.getByRole('link', { name: 'Back to the mail log' }).click();
      await page.getByRole('heading', { name: 'Mail log' }).waitFor();
      await expectNoSidewaysScroll(page);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
