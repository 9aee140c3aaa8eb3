/**
 * The console's catalog pages in Chromium, found by their accessible names: an owner finds a product
 * in the list, restocks a size on its page with a delivery note, previews and applies an import,
 * and is asked before a product is removed. axe-core checks every page on the way. Needs Debian's `chromium` at
 * /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { BrowserContext } from 'playwright-core';
import { expectAccessible } from '@storefront/testing';
import { browserStackForSuite } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';

describe('the console in Chromium: the catalog', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  /** A browser holding the console session of a new member signed in over HTTP. */
  async function signedInBrowser(email: string, role: 'owner' | 'staff'): Promise<BrowserContext> {
    const client = site.stack.client();
    await signedInStaff(site.stack, client, email, role);
    return site.newContext({ client, cookie: 'svc_staff' });
  }

  it('restocks with a note, imports after a preview and asks before removing, on accessible pages', async () => {
    const context = await signedInBrowser('browser-owner@shop.test', 'owner');
    const page = await context.newPage();
    try {
      await page.goto('/console');
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Catalog' }).click();
      await page.getByRole('heading', { name: 'Catalog', level: 1 }).waitFor();
      await expectAccessible(page);
      await page.getByRole('link', { name: 'TB-500', exact: true }).click();
      await page.getByRole('heading', { name: 'TB-500', level: 1 }).waitFor();
      await expectAccessible(page);

      await page.getByRole('button', { name: 'Restock tb-500-10mg' }).click();
      // The browser itself asks for the units first: the field is required.
      expect(page.url()).to.match(/\/console\/catalog\/tb-500$/);
      await page.locator('#restock-tb-500-10mg').fill('6');
      await page.locator('#restock-note-tb-500-10mg').fill('Supplier delivery 12');
      await page.getByRole('button', { name: 'Restock tb-500-10mg' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the change to tb-500-10mg.' }).waitFor();
      expect(await page.getByRole('row', { name: /tb-500-10mg/ }).textContent()).to.include('18');

      await page.getByRole('link', { name: 'All products' }).click();
      await page.getByRole('link', { name: 'Import a catalog file' }).click();
      await expectAccessible(page);
      const file = JSON.stringify({
        products: [
          { id: 'selank', name: 'Selank', description: 'New.', sizes: [{ size: '5mg', price: 21, stock: 8 }] },
        ],
      });
      await page.getByLabel('Catalog file (JSON)').fill(file);
      await page.getByRole('button', { name: 'Preview the import' }).click();
      await page.getByRole('heading', { name: 'Import preview' }).waitFor();
      expect(await page.getByRole('listitem').filter({ hasText: 'Selank (selank)' }).count()).to.equal(1);
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Apply this import' }).click();
      await page.getByRole('status').filter({ hasText: 'Imported the catalog file.' }).waitFor();
      await page.getByRole('link', { name: 'Selank', exact: true }).click();
      await page.getByRole('heading', { name: 'Selank', exact: true }).waitFor();

      await page.getByRole('button', { name: 'Remove product Selank' }).click();
      await page.getByRole('heading', { name: 'Remove Selank?' }).waitFor();
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Yes, remove Selank' }).click();
      await page.getByRole('status').filter({ hasText: 'Removed the product selank.' }).waitFor();
      expect(await page.getByRole('link', { name: 'Selank', exact: true }).count()).to.equal(0);
    } finally {
      await context.close();
    }
  });

  it('shows a member of the staff role the table without a form', async () => {
    const context = await signedInBrowser('browser-staff@shop.test', 'staff');
    const page = await context.newPage();
    try {
      await page.goto('/console/catalog');
      await page.getByRole('table', { name: 'Products' }).waitFor();
      // Only the search form's button.
      expect(await page.getByRole('button').count()).to.equal(1);
      await expectAccessible(page);
      await page.getByRole('link', { name: 'BPC-157', exact: true }).click();
      await page.getByRole('table', { name: 'Sizes of BPC-157' }).waitFor();
      expect(await page.getByRole('button').count()).to.equal(0);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
