/**
 * Batches in Chromium, found by their accessible names: an owner receives a batch with its certificate PDF through
 * the upload form, sees it listed with its analysis, and quarantines it after a confirmation page, the size's stock
 * dropping by its units. axe-core checks every page on the way. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import { expectAccessible } from '@storefront/testing';
import { browserStackForSuite } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';

const SKU = 'bpc-157-5mg';

describe('the console in Chromium: batches', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('receives a batch with its certificate, then quarantines it after asking, on accessible pages', async () => {
    const client = site.stack.client();
    await signedInStaff(site.stack, client, 'browser-batches@shop.test', 'owner');
    const onHand = async () =>
      (
        await client.get<{ products: Array<{ sizes: Array<{ sku: string; onHand: number }> }> }>('/api/admin/catalog')
      ).body.products
        .flatMap((product) => product.sizes)
        .find((size) => size.sku === SKU)!.onHand;
    const stockBefore = await onHand();
    const context = await site.newContext({ client, cookie: 'svc_staff' });
    const page = await context.newPage();
    try {
      await page.goto('/console');
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Batches', exact: true })
        .click();
      await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
      await expectAccessible(page);

      await page.getByRole('link', { name: `Receive a batch of ${SKU}` }).click();
      await page.getByRole('heading', { name: 'Receive a batch' }).waitFor();
      await expectAccessible(page);
      expect(await page.getByLabel('Size').inputValue()).to.equal(SKU);
      await page.getByLabel('Batch number (as printed on the vial)').fill('web-2611');
      await page.getByLabel('Units delivered').fill('7');
      await page.getByLabel('HPLC purity in percent, such as 99.42').fill('99.5');
      await page.getByLabel('Test date (YYYY-MM-DD)').fill('2026-11-02');
      await page.getByLabel('Testing laboratory').fill('Browser Lab');
      await page.getByLabel('Retest or expiry date (YYYY-MM-DD)').fill('2028-11-02');
      await page.getByLabel('Certificate of analysis (PDF, at most 5 MB)').setInputFiles({
        name: 'certificate.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('%PDF-1.4\n% sample certificate\n%%EOF\n'),
      });
      await page.getByRole('button', { name: 'Receive the batch' }).click();
      await page.getByRole('status').filter({ hasText: 'Received batch WEB-2611.' }).waitFor();
      const row = page.getByRole('row', { name: /WEB-2611/ });
      expect(await row.textContent())
        .to.contain('99.50 %')
        .and.contain('Browser Lab')
        .and.contain('On sale')
        .and.contain('Yes');
      expect(await onHand()).to.equal(stockBefore + 7);

      await page.getByRole('button', { name: 'Quarantine WEB-2611' }).click();
      await page.getByRole('heading', { name: 'Quarantine batch WEB-2611?' }).waitFor();
      await expectAccessible(page);
      await page.getByLabel('Why (kept in the audit log, optional)').fill('Seal broken');
      await page.getByRole('button', { name: 'Yes, quarantine WEB-2611' }).click();
      await page.getByRole('status').filter({ hasText: 'Quarantined batch WEB-2611.' }).waitFor();
      expect(await page.getByRole('row', { name: /WEB-2611/ }).textContent()).to.contain('Quarantined');
      expect(await onHand()).to.equal(stockBefore);
    } finally {
      await context.close();
    }
  });
});
