/**
 * "Email me when it is back" in Chromium, found by accessible names: a sold-out size offers the alert, a guest asks
 * and confirms by the mailed link, the restock mails the alert, and its link leads to the size, now orderable. axe-core
 * checks each page. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { Env } from '@storefront/config';
import { expectAccessible, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import { eventually, limitedSku } from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';
import { signedInStaff } from '../support/console';

describe('the shop in Chromium: back-in-stock alerts', function () {
  this.timeout(120_000);
  let smtp: TestSmtpServer;
  const env: Env = { MAIL_POLL_INTERVAL_MS: '50', CATALOG_REFRESH_MS: '100' };
  // Before the stack starts: it reads SMTP_URL from `env`.
  before(async () => {
    smtp = await startTestSmtpServer();
    env.SMTP_URL = smtp.url;
  });
  after(() => smtp?.stop());
  const site = browserStackForSuite({ env });

  const mailWith = async (subject: string) => {
    await eventually(async () => smtp.received.some((mail) => mail.subject === subject), 10_000, subject);
    return smtp.received.find((mail) => mail.subject === subject)!.text ?? '';
  };

  it('offers the alert on a sold-out size, mails it on the restock, and its link leads to the size', async () => {
    const sku = await limitedSku(site.stack, 0);
    const productPath = `/products/${sku.replace(/-one$/, '')}`;
    await eventually(async () => (await site.stack.client().get(productPath)).status === 200);
    const context = await site.newContext();
    const page = await context.newPage();
    try {
      await page.goto(productPath);
      await page.getByRole('heading', { name: 'one is sold out' }).waitFor();
      await expectAccessible(page);
      await page.getByLabel('Your email (leave it empty when signed in)').fill('reader@example.com');
      await page.getByRole('button', { name: 'Email me when it is back' }).click();
      await page.getByRole('status').filter({ hasText: 'Check your inbox' }).waitFor();
      await expectAccessible(page);

      const confirmation = await mailWith('Confirm your alert for Limited drop one');
      const confirmUrl = new RegExp(`${site.origin}/back-in-stock/confirm\\?token=\\S+`).exec(confirmation)![0];
      await page.goto(confirmUrl);
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('heading', { name: 'Alert confirmed' }).waitFor();

      const owner = site.stack.client();
      await signedInStaff(site.stack, owner, 'browser-alerts-owner@shop.test', 'owner');
      const restocked = await owner.post(`/api/admin/catalog/skus/${sku}/restock`, { units: 2, note: 'Delivery' });
      expect(restocked.status, restocked.text).to.equal(200);

      const alert = await mailWith('Limited drop one is back in stock');
      const sizeUrl = `${site.origin}${productPath}#size-${sku}`;
      expect(alert).to.contain(sizeUrl);
      await eventually(async () => !(await site.stack.client().get<string>(productPath)).text.includes('is sold out'));
      await page.goto(sizeUrl);
      const size = page.locator(`#size-${sku}`);
      expect(await size.isVisible()).to.equal(true);
      expect(await page.getByRole('radio', { name: /one, £10\.00, 2 left/ }).isEnabled()).to.equal(true);
      expect(await page.getByRole('button', { name: 'Email me when it is back' }).count()).to.equal(0);
    } finally {
      await context.close();
    }
  });
});
