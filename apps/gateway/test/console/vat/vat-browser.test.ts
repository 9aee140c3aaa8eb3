/**
 * The console's VAT report in Chromium, for a staff-role member: reached from the console's navigation, a period
 * chosen with the form (no script), axe finds no serious or critical violation, and at 320 px the table scrolls in its
 * own region. Needs Debian's `chromium`.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { browserStackForSuite, expectNoSidewaysScroll } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';
import { QUARTER, seedVatQuarter } from '../../support/vat';

/** The browser globals the page function below uses; tests compile without the DOM library. */

describe('the console VAT report in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('is reached from the navigation, takes a period from its form and is accessible at any width', async () => {
    const client = site.stack.client();
    await signedInStaff(site.stack, client, 'vat-browser@shop.test', 'staff');
    await seedVatQuarter(site.stack.checkout!.db);
    const context = await site.newContext({ client, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console');
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'VAT report' }).click();
      await page.getByRole('heading', { name: 'VAT report', level: 1 }).waitFor();
      await page.getByLabel('From (date)').fill(QUARTER.from);
      await page.getByLabel('To (date, included)').fill(QUARTER.to);
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/from=2026-04-01/);
      const table = page.getByRole('table', { name: 'VAT by rate: receipts less credit notes' });
      expect(await table.getByRole('row', { name: /^Total/ }).textContent()).to.include('£42.00');
      await expectAccessible(page);

      await page.setViewportSize({ width: 320, height: 640 });
      await page.reload();
      await expectNoSidewaysScroll(page);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
