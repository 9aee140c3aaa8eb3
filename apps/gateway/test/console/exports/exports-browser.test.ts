/**
 * The console's exports page in Chromium, for a staff-role member: axe finds no serious or critical violation on the
 * form or on a refused period, and the form's buttons download the CSVs under their dated names. Needs Debian's
 * `chromium`.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { insertPaidOrders } from '../../../../checkout/test/paid-orders';
import { browserStackForSuite } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';
import { parseCsv } from '../../support/csv';

describe('the console exports page in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('is accessible, refuses a period backwards, downloads the orders and stock movements of chosen days', async () => {
    const client = site.stack.client();
    await signedInStaff(site.stack, client, 'exports-browser@shop.test', 'staff');
    await insertPaidOrders(
      site.stack.checkout!.db,
      [{ paidAt: Date.parse('2026-06-15T11:00:00Z'), lines: [{ sku: 'kit', quantity: 2, unitPricePence: 1250 }] }],
      'exports-browser',
    );
    const context = await site.newContext({ client, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console/exports');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Exports');
      await expectAccessible(page);

      await page.getByLabel('From (London date)').fill('2026-06-20');
      await page.getByLabel('To, included (London date)').fill('2026-06-10');
      await page.getByRole('button', { name: 'Download orders (CSV)' }).click();
      expect(await page.getByRole('alert').textContent()).to.equal('to_date must be on or after from_date');
      await expectAccessible(page);

      await page.getByLabel('From (London date)').fill('2026-06-15');
      await page.getByLabel('To, included (London date)').fill('2026-06-15');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download orders (CSV)' }).click(),
      ]);
      expect(download.suggestedFilename()).to.equal('orders-2026-06-15-to-2026-06-15.csv');
      const rows = parseCsv(await readFile((await download.path())!, 'utf8'));
      expect(rows.map((row) => row.slice(1, 5))).to.deep.equal([
        ['placed_london', 'email', 'status', 'goods'],
        ['2026-06-15 12:00', 'seeded@example.com', 'delivered', '25.00'],
      ]);

      // The same days' stock movements, by the button of their own on the same form.
      await site.stack.inventory!.db('stock_movements').insert({
        occurred_at: Date.parse('2026-06-15T11:00:00Z'),
        sku: 'kit',
        units: -2,
        on_hand_after: 8,
        reason: 'sale',
        reference: 'exports-browser-order',
      });
      const [movements] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download stock movements (CSV)' }).click(),
      ]);
      expect(movements.suggestedFilename()).to.equal('stock-movements-2026-06-15-to-2026-06-15.csv');
      expect(parseCsv(await readFile((await movements.path())!, 'utf8'))).to.deep.equal([
        ['occurred_london', 'sku', 'units', 'on_hand_after', 'reason', 'reference'],
        ['2026-06-15 12:00', 'kit', '-2', '8', 'sale', 'exports-browser-order'],
      ]);
    } finally {
      await context.close();
    }
  });
});
