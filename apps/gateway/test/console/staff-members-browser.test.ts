/**
 * The console's staff members page in Chromium, for an owner: adding a member shows their set-up link and lists them
 * as set-up pending; disabling another member asks first, then lists them disabled. axe finds no serious or critical
 * violation on the pages, and each fits a 320 px wide screen (the table scrolls in its own region). Needs Debian's
 * `chromium`.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { browserStackForSuite, expectNoSidewaysScroll } from '../support/browser-stack';
import { signedInStaff } from '../support/console';

describe('the console staff members page in Chromium', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('lets an owner add a member and disable another after confirming, at 320 px too', async () => {
    const owner = site.stack.client();
    await signedInStaff(site.stack, owner, 'browser-owner@shop.test', 'owner');
    await signedInStaff(site.stack, site.stack.client(), 'browser-leaver@shop.test', 'staff');
    const context = await site.newContext({ client: owner, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.setViewportSize({ width: 320, height: 640 });
      await page.goto('/console/staff');
      await page.getByRole('heading', { name: 'Staff members', level: 1 }).waitFor();
      await expectNoSidewaysScroll(page);
      await expectAccessible(page);

      await page.getByLabel('Email', { exact: true }).fill('browser-new@shop.test');
      await page.getByLabel('Role').selectOption('staff');
      await page.getByRole('button', { name: 'Add and make a set-up link' }).click();
      await page.getByRole('heading', { name: 'Staff member added' }).waitFor();
      expect(await page.locator('#setup-link').textContent()).to.match(/\/console\/setup\/[\w-]{20,}$/);
      await expectNoSidewaysScroll(page, 'the set-up link page');
      await expectAccessible(page);

      await page.getByRole('link', { name: 'Back to staff members' }).click();
      const members = page.getByRole('table', { name: 'Staff members by email' });
      const added = members
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'browser-new@shop.test' }) });
      expect(await added.getByRole('cell', { name: 'set-up pending' }).count()).to.equal(1);

      await members.getByRole('button', { name: 'Disable browser-leaver@shop.test' }).click();
      await page.getByRole('heading', { name: 'Disable browser-leaver@shop.test?' }).waitFor();
      await expectNoSidewaysScroll(page, 'the confirmation');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Yes, disable browser-leaver@shop.test now' }).click();
      expect(await page.getByRole('status').textContent()).to.equal(
        'browser-leaver@shop.test is disabled: their sessions end at their next request.',
      );
      const leaver = members
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'browser-leaver@shop.test' }) });
      expect(await leaver.getByRole('cell', { name: 'disabled', exact: true }).count()).to.equal(1);
      await expectNoSidewaysScroll(page);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
