/**
 * The console's overview in Chromium, for a staff-role member: axe finds no serious or critical violation with the
 * charts' tables closed and open, and the page fits a 320 px wide screen without scrolling sideways (the tables
 * scroll inside their own region). Needs Debian's `chromium`.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { insertPaidOrders } from '../../../checkout/test/paid-orders';
import { sku } from '../../../checkout/test/support';
import { browserStackForSuite, expectNoSidewaysScroll } from '../support/browser-stack';
import { signedInStaff } from '../support/console';

const DAY = 24 * 60 * 60 * 1000;

/** The browser globals the page function below uses; tests compile without the DOM library. */

describe('the console overview in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('is accessible and fits 320 px, charts, tables and all', async () => {
    const client = site.stack.client();
    await signedInStaff(site.stack, client, 'overview-browser@shop.test', 'staff');
    const now = Date.now();
    await insertPaidOrders(
      site.stack.checkout!.db,
      Array.from({ length: 60 }, (_, index) => ({
        paidAt: now - (index % 30) * DAY - 60_000,
        lines: [
          { sku: sku(index % 3 === 0 ? 'low' : 'p7500'), quantity: 1 + (index % 2), unitPricePence: 1200 },
          { sku: sku('p1005'), quantity: 1, unitPricePence: 1005 },
        ],
        shippingPence: 495,
        ...(index === 0 ? { status: 'paid' as const } : {}),
        ...(index === 1 ? { refund: { amountPence: 1200, at: now - 1000 } } : {}),
      })),
      'overview-browser',
    );
    const context = await site.newContext({ client, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Overview');
      expect(await page.getByRole('img', { name: 'Revenue per day, last 30 days' }).count()).to.equal(1);
      expect(await page.getByRole('img', { name: 'Top products by revenue, last 30 days' }).count()).to.equal(1);
      await expectAccessible(page);
      await page.getByText('Revenue per day as a table').click();
      await page.getByText('Top products as a table').click();
      expect(await page.getByRole('table', { name: 'Revenue per day, last 30 days' }).isVisible()).to.equal(true);
      await expectAccessible(page);

      await page.setViewportSize({ width: 320, height: 640 });
      await page.goto('/console');
      await page.getByText('Revenue per day as a table').click();
      await expectNoSidewaysScroll(page);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
