/**
 * The owner's journey in Chromium: a product created in the console with two sizes and a photo, then seen on the
 * storefront's home and product pages with the photo loaded at a width from its srcset; axe-core checks every page on
 * the way. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { expectAccessible } from '@storefront/testing';
import { browserStackForSuite } from '../../support/browser-stack';
import { signedInStaff } from '../../support/console';

const ALT = 'A white-capped vial labelled Epitalon on a grey bench';

describe('the console in Chromium: a new product with two sizes and a photo, on the storefront', function () {
  this.timeout(120_000);
  const site = browserStackForSuite();

  it('creates the product, adds a size, uploads its photo and finds it on the shop’s pages', async () => {
    const client = site.stack.client();
    await signedInStaff(site.stack, client, 'photo-journey@shop.test', 'owner');
    const context = await site.newContext({ client, cookie: 'svc_staff' });
    const photo = await sharp({
      create: { width: 1200, height: 900, channels: 3, background: { r: 90, g: 120, b: 150 } },
    })
      .jpeg()
      .toBuffer();
    try {
      const page = await context.newPage();
      await page.goto('/console/catalog');
      await page.getByRole('link', { name: 'Add a product' }).click();
      await page.getByLabel('Product id (lower-case letters, digits and hyphens; it cannot change)').fill('epitalon');
      await page.getByLabel('Name', { exact: true }).fill('Epitalon');
      await page.getByLabel('Description').fill('A tetrapeptide for research.');
      await page.getByLabel('Size, such as 5mg or 10ml').fill('10mg');
      await page.getByLabel('Price in pounds').fill('24.00');
      await page.getByLabel('Units in stock (leave empty for an unlimited size)').fill('8');
      await page.getByRole('button', { name: 'Add the product' }).click();
      await page.getByRole('status').filter({ hasText: 'Added the product.' }).waitFor();
      await expectAccessible(page);

      await page.getByLabel('Size, such as 5mg or 10ml').fill('50mg');
      await page.getByLabel('Price in pounds').last().fill('89.50');
      await page.getByRole('button', { name: 'Add the size to Epitalon' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the change to epitalon-50mg.' }).waitFor();

      await page.getByLabel('Photo of Epitalon (JPEG, PNG or WebP, at most 10 MB)').setInputFiles({
        name: 'IMG_0042.JPG',
        mimeType: 'image/jpeg',
        buffer: photo,
      });
      await page.getByLabel('What the photo shows (its text for people who do not see it)').fill(ALT);
      await page.getByRole('button', { name: 'Upload the photo of Epitalon' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the photo of epitalon.' }).waitFor();
      await page.getByRole('img', { name: ALT }).waitFor();
      await expectAccessible(page);

      const shop = await site.newContext();
      const storefront = await shop.newPage();
      await storefront.goto('/products/epitalon');
      const img = storefront.getByRole('img', { name: ALT });
      await img.waitFor();
      // Drawn from the srcset, in the shape of its width and height attributes.
      const drawn = await img.evaluate(
        async (element: {
          decode(): Promise<void>;
          currentSrc: string;
          naturalWidth: number;
          width: number;
          height: number;
        }) => {
          await element.decode();
          return { current: element.currentSrc, natural: element.naturalWidth, ratio: element.width / element.height };
        },
      );
      expect(drawn.current).to.match(/\/media\/[0-9a-f]{64}-\d+\.(avif|webp)$/);
      expect(drawn.natural).to.be.above(0);
      expect(drawn.ratio).to.be.closeTo(4 / 3, 0.01);
      expect(await storefront.getByText('10mg, £24.00').count()).to.equal(1);
      expect(await storefront.getByText('50mg, £89.50').count()).to.equal(1);
      await expectAccessible(storefront);

      await storefront.goto('/');
      const card = storefront.getByRole('listitem').filter({ has: storefront.getByRole('link', { name: 'Epitalon' }) });
      expect(await card.getByRole('img', { name: ALT }).getAttribute('loading')).to.equal('lazy');
      await expectAccessible(storefront);
      await shop.close();
    } finally {
      await context.close();
    }
  });
});
