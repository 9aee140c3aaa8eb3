/**
 * The console's customer search in Chromium, for a staff-role member: a name finds the customers whose name starts
 * with it, listed as links (axe finds no serious or critical violation on the list or on a refused search), and the
 * link opens the customer. Needs Debian's `chromium`.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { signUp } from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';
import { signedInStaff } from '../support/console';

describe('the console customer search in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('finds customers by the start of a name and opens one', async () => {
    const staff = site.stack.client();
    await signedInStaff(site.stack, staff, 'customers-browser@shop.test', 'staff');
    const customerId = await signUp(site.stack.client());
    await site.stack
      .identity!.db('users')
      .where({ id: customerId })
      .update({ first_name: 'Wilhelmina', last_name: 'Zed' });
    const context = await site.newContext({ client: staff, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console/customers');
      await page.getByLabel('Email (exact, any letter case) or the start of a name').fill('w');
      await page.getByRole('button', { name: 'Find customer' }).click();
      expect(await page.getByRole('alert').textContent()).to.equal('name must be 2 to 100 characters');
      await expectAccessible(page);

      await page.getByLabel('Email (exact, any letter case) or the start of a name').fill('wilhelmina z');
      await page.getByRole('button', { name: 'Find customer' }).click();
      const table = page.getByRole('table', { name: 'Customers whose name starts with that, by name' });
      expect(await table.getByRole('row').count()).to.equal(2);
      await expectAccessible(page);
      await table.getByRole('link', { name: 'Wilhelmina Zed' }).click();
      await page.getByRole('heading', { name: 'Customer Wilhelmina Zed' }).waitFor();
      expect(page.url()).to.match(new RegExp(`/console/customers/${customerId}$`));
    } finally {
      await context.close();
    }
  });
});
