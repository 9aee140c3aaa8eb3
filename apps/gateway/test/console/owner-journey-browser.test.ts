/**
 * THE owner's journey in Chromium, every control found by its accessible name, on whichever backend the suite runs:
 * the owner scans the set-up page's QR code (its SVG rasterised and decoded here, the secret read from the decoded
 * otpauth address) and logs in with the authenticator's code; creates a product with two sizes and a PNG photo; finds
 * it on the storefront with its photo loaded from the srcset; a customer buys it, paying on the sandbox's page; the
 * overview shows the sale in its figures and chart; the order waits in "Awaiting dispatch", its packing slip PDF names
 * it, and it is dispatched with two other paid orders at once, each customer mailed once; the day's orders CSV lists
 * the three with their totals; a low-stock threshold set on the product's page mails the owners once when a purchase
 * takes the size below it, and not again for the next. Mail goes through a real SMTP server; axe-core checks every
 * page on the way. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import decodeQR from 'qr/decode.js';
import { expectAccessible, readPdf, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import {
  EDGE_PRICES,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  eventually,
  expectCheckout,
  orderNumberOf,
  sku,
} from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';
import { STAFF_PASSWORD, addStaff, totpCode } from '../support/console';
import { parseCsv } from '../support/csv';
import { addToBasket, checkOutAndPay } from '../support/shopper';

const OWNER_EMAIL = 'journey-owner@shop.test';
const PRODUCT = { id: 'selank', name: 'Selank', sizes: ['5mg', '10mg'] } as const;
const SMALL = `${PRODUCT.id}-5mg`;
const ALT = 'A clear vial labelled Selank beside its box';
const DELIVERY = {
  'Full name': 'Dorothy Hodgkin',
  Email: 'dorothy@example.com',
  'Address line 1': '9 Crystal Row',
  City: 'Oxford',
  Postcode: 'OX1 3PU',
};

/** Today as a London date (YYYY-MM-DD), the day the exports and overview count in. */
const londonToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date());

/** The otpauth address a phone's camera would read off the QR code drawn on the page. */
async function scanQrCode(page: Page): Promise<URL> {
  const svg = await page
    .getByRole('img', { name: 'QR code of the authenticator address' })
    .evaluate((element: { outerHTML: string }) => element.outerHTML);
  const { data, info } = await sharp(Buffer.from(svg), { density: 288 })
    .flatten({ background: '#ffffff' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return new URL(decodeQR({ width: info.width, height: info.height, data }, { format: 'RGBA' }));
}

describe("the owner's journey in Chromium: from the set-up link to a low-stock mail", function () {
  this.timeout(120_000);
  let smtp: TestSmtpServer;
  // Filled in before the stack starts, which reads it then.
  const env: Record<string, string> = {
    MAIL_POLL_INTERVAL_MS: '50',
    CATALOG_REFRESH_MS: '100',
    LOW_STOCK_MAIL_TO: OWNER_EMAIL,
  };
  before(async () => {
    smtp = await startTestSmtpServer();
    env.SMTP_URL = smtp.url;
  });
  after(async () => smtp?.stop());
  const site = browserStackForSuite({ env });

  const shop = () => ({ origin: site.origin, sandboxUrl: site.stack.paymentSandbox!.url });
  /** The mails received whose subject matches, once `count` of them arrived and every outbox was sent. */
  async function mailsMatching(subject: RegExp, count: number) {
    const matching = () => smtp.received.filter((mail) => subject.test(mail.subject ?? ''));
    await eventually(async () => matching().length >= count, 10_000, `${count} mails like ${subject}`);
    await Promise.all([site.stack.checkout!.sendMailNow(), site.stack.inventory!.sendMailNow()]);
    return matching();
  }
  /**
   * A customer's purchase of `quantity` of the size in a browser of their own, with axe on the basket, checkout and
   * order pages when `checked`; answers the order's reference.
   */
  async function customerBuys(size: string, quantity: number, total: string, checked = false): Promise<string> {
    const context = await site.newContext();
    const check = async (page: Page) => (checked ? expectAccessible(page) : undefined);
    try {
      const page = await context.newPage();
      await page.goto(`/products/${PRODUCT.id}`);
      await addToBasket(page, size, quantity);
      await check(page);
      await page.getByRole('button', { name: 'Checkout' }).click();
      await page.waitForURL((url) => url.pathname === '/checkout');
      await check(page);
      const reference = await checkOutAndPay(page, shop(), DELIVERY, total);
      await check(page);
      return reference;
    } finally {
      await context.close();
    }
  }
  /** Another customer's paid order placed through the API and confirmed on its page, ready for dispatch. */
  async function paidApiOrder(): Promise<{ reference: string; number: string }> {
    const created = await expectCheckout(
      site.stack.client(),
      checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]),
    );
    await completePayment(created.hosted_checkout_url, 'pay');
    await site.stack.checkout!.reconcileNow();
    await confirmOnOrderPage(site.stack.client(), created.checkout_reference, site.origin);
    return {
      reference: created.checkout_reference,
      number: await orderNumberOf(site.stack, created.checkout_reference),
    };
  }

  it('sets up two-factor login by QR code, sells a new product, dispatches, exports, hears of low stock', async () => {
    const context = await site.newContext();
    const page = await context.newPage();
    try {
      // Two-factor set-up by scanning the QR code, then a login with the app's next code.
      await page.goto(await addStaff(site.stack, OWNER_EMAIL, 'owner'));
      await expectAccessible(page);
      const otpauth = await scanQrCode(page);
      expect(otpauth.protocol).to.equal('otpauth:');
      const secret = otpauth.searchParams.get('secret')!;
      expect(secret).to.match(/^[A-Z2-7]+$/);
      await page.getByLabel('New password (at least 12 characters)').fill(STAFF_PASSWORD);
      await page.getByLabel('Current code from the app').fill(totpCode(secret));
      await page.getByRole('button', { name: 'Finish set-up' }).click();
      await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      await expectAccessible(page);
      await page.getByRole('link', { name: 'Log in' }).first().click();
      await page.getByLabel('Email', { exact: true }).fill(OWNER_EMAIL);
      await expectAccessible(page);
      await page.getByLabel('Password').fill(STAFF_PASSWORD);
      await page.getByLabel('Authenticator code or recovery code').fill(totpCode(secret, 1));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText(`Signed in as ${OWNER_EMAIL} (owner)`).waitFor();
      await expectAccessible(page);

      // A product with two sizes and a photo.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Catalog' }).click();
      await page.getByRole('link', { name: 'Add a product' }).click();
      await page.getByLabel('Product id (lower-case letters, digits and hyphens; it cannot change)').fill(PRODUCT.id);
      await page.getByLabel('Name', { exact: true }).fill(PRODUCT.name);
      await page.getByLabel('Description').fill('A heptapeptide for research.');
      await page.getByLabel('Size, such as 5mg or 10ml').fill('5mg');
      await page.getByLabel('Price in pounds').fill('24.00');
      await page.getByLabel('Units in stock (leave empty for an unlimited size)').fill('10');
      await page.getByRole('button', { name: 'Add the product' }).click();
      await page.getByRole('status').filter({ hasText: 'Added the product.' }).waitFor();
      await page.getByLabel('Size, such as 5mg or 10ml').fill('10mg');
      await page.getByLabel('Price in pounds').last().fill('42.00');
      await page.getByLabel('Units in stock (leave empty for an unlimited size)').fill('6');
      await page.getByRole('button', { name: `Add the size to ${PRODUCT.name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved the change to ${PRODUCT.id}-10mg.` })
        .waitFor();
      const photo = await sharp({
        create: { width: 800, height: 600, channels: 3, background: { r: 200, g: 220, b: 235 } },
      })
        .png()
        .toBuffer();
      await page
        .getByLabel(`Photo of ${PRODUCT.name} (JPEG, PNG or WebP, at most 10 MB)`)
        .setInputFiles({ name: 'selank.png', mimeType: 'image/png', buffer: photo });
      await page.getByLabel('What the photo shows (its text for people who do not see it)').fill(ALT);
      await page.getByRole('button', { name: `Upload the photo of ${PRODUCT.name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved the photo of ${PRODUCT.id}.` })
        .waitFor();
      await expectAccessible(page);

      // On the storefront, its photo drawn from the srcset.
      const visitor = await site.newContext();
      const storefront = await visitor.newPage();
      await storefront.goto(`/products/${PRODUCT.id}`);
      const image = storefront.getByRole('img', { name: ALT });
      expect(await image.getAttribute('srcset')).to.match(/\/media\/[0-9a-f]{64}-\d+\.\w+ \d+w/);
      const current = await image.evaluate(async (element: { decode(): Promise<void>; currentSrc: string }) => {
        await element.decode();
        return element.currentSrc;
      });
      const served = await storefront.request.get(current);
      expect(served.status(), current).to.equal(200);
      expect(served.headers()['content-type']).to.match(/^image\//);
      for (const size of PRODUCT.sizes)
        expect(await storefront.getByRole('radio', { name: new RegExp(`^${size}, `) }).count()).to.equal(1);
      await expectAccessible(storefront);
      await visitor.close();

      // A customer buys one of the small size: £24.00 and £4.95 delivery.
      const sold = await customerBuys('5mg', 1, '£28.95', true);
      const soldNumber = await orderNumberOf(site.stack, sold);

      // The overview: the sale in today's figures, the chart's last bar and its table.
      await page.goto('/console');
      const today = page
        .getByRole('table', { name: 'Orders paid, revenue and refunds' })
        .getByRole('row', { name: /^Today/ });
      expect(await today.getByRole('cell').allInnerTexts()).to.deep.equal(['1', '£28.95', '£28.95', '0', '£0.00']);
      const bars = await page
        .getByRole('img', { name: 'Revenue per day, last 30 days' })
        .locator('rect.bar')
        .evaluateAll((rects: Array<{ getAttribute(name: string): string | null }>) =>
          rects.map((rect) => Number(rect.getAttribute('height'))),
        );
      expect(bars).to.have.length(30);
      expect(bars.slice(0, -1).every((height) => height === 0)).to.equal(true);
      expect(bars.at(-1)).to.be.above(0);
      await page.getByText('Revenue per day as a table').click();
      const revenueRows = await page
        .getByRole('table', { name: 'Revenue per day, last 30 days' })
        .getByRole('row')
        .allInnerTexts();
      expect(revenueRows.at(-1)!.split('\t').slice(1)).to.deep.equal(['1', '£28.95']);
      await page.getByText('Top products as a table').click();
      const topRow = page
        .getByRole('table', { name: 'Top products by revenue, last 30 days' })
        .getByRole('row', { name: `${PRODUCT.name} 5mg` });
      expect(await topRow.getByRole('cell').allInnerTexts()).to.deep.equal([SMALL, '1', '£24.00']);
      await expectAccessible(page);

      // Awaiting dispatch, and its packing slip read back.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Awaiting dispatch' }).click();
      await page.getByRole('heading', { name: 'Awaiting dispatch' }).waitFor();
      await page.getByRole('checkbox', { name: `Select ${soldNumber}` }).waitFor();
      await expectAccessible(page);
      const slipHref = await page
        .getByRole('link', { name: `Packing slip of ${soldNumber} (PDF)` })
        .getAttribute('href');
      const slipFile = await page.request.get(slipHref!);
      expect(slipFile.status()).to.equal(200);
      expect(slipFile.headers()['content-type']).to.equal('application/pdf');
      const slip = (await readPdf(await slipFile.body())).text.split('\n');
      expect(slip).to.include(`Order number: ${soldNumber}`);
      expect(
        slip.some((line) => line.startsWith(`${PRODUCT.name} 5mg ${SMALL}`) && line.endsWith('× 1')),
        slip.join('\n'),
      ).to.equal(true);
      for (const part of [DELIVERY['Full name'], DELIVERY['Address line 1'], DELIVERY.City, DELIVERY.Postcode])
        expect(slip).to.include(part);

      // Dispatched with two other paid orders at once, each customer mailed once.
      const others = [await paidApiOrder(), await paidApiOrder()];
      const numbers = [soldNumber, ...others.map((order) => order.number)];
      await page.reload();
      for (const number of numbers) await page.getByRole('checkbox', { name: `Select ${number}` }).check();
      await page.getByRole('button', { name: 'Dispatch selected orders' }).click();
      await page.getByRole('heading', { name: 'Dispatch selected orders' }).waitFor();
      await expectAccessible(page);
      for (const [index, number] of numbers.entries()) {
        await page.getByLabel(`Carrier for ${number}`).fill(index === 0 ? 'Royal Mail' : 'DPD');
        await page.getByLabel(`Tracking number for ${number}`).fill(`TRK ${index + 1}00-GB`);
      }
      await page.getByRole('button', { name: 'Dispatch 3 orders and email the customers' }).click();
      await page.getByRole('heading', { name: 'Dispatched (3)' }).waitFor();
      await page.getByText(`${soldNumber}: with Royal Mail, tracking TRK 100-GB`).waitFor();
      await expectAccessible(page);
      const dispatchMails = await mailsMatching(/^Order .+ is on its way$/, 3);
      expect(dispatchMails.map((mail) => mail.subject).sort()).to.deep.equal(
        numbers.map((number) => `Order ${number} is on its way`).sort(),
      );

      // The day's orders as CSV: the three, with their totals.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Exports' }).click();
      await page.getByLabel('From (London date)').fill(londonToday());
      await page.getByLabel('To, included (London date)').fill(londonToday());
      await expectAccessible(page);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download orders (CSV)' }).click(),
      ]);
      const [header, ...rows] = parseCsv(await readFile((await download.path())!, 'utf8'));
      const column = (name: string) => header!.indexOf(name);
      expect(
        rows.map((row) => [row[column('number')], row[column('status')], row[column('total')]]).sort(),
      ).to.deep.equal(
        [
          [soldNumber, 'dispatched', '28.95'],
          ...others.map(({ number }) => [number, 'dispatched', (EDGE_PRICES.p7500 / 100).toFixed(2)]),
        ].sort(),
      );

      // A low-stock threshold: one mail when a purchase takes the size below it, none for the next.
      await page.goto(`/console/catalog/${PRODUCT.id}`);
      await page
        .getByLabel(/^Low-stock threshold/)
        .first()
        .fill('8');
      await page.getByRole('button', { name: `Set low-stock threshold of ${SMALL}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved the change to ${SMALL}.` })
        .waitFor();
      expect(await page.locator(`#low-stock-${SMALL}`).inputValue()).to.equal('8');
      await expectAccessible(page);
      // 9 available: 2 more take it to 7, below 8; one after that to 6.
      await customerBuys('5mg', 2, '£52.95');
      const [lowStock] = await mailsMatching(/^Low stock/, 1);
      expect(lowStock!.subject).to.equal(`Low stock: ${SMALL} has 7 left`);
      expect((lowStock!.to as { text: string }).text).to.equal(OWNER_EMAIL);
      await customerBuys('5mg', 1, '£28.95');
      expect(await mailsMatching(/^Low stock/, 1)).to.have.length(1);
    } finally {
      await context.close();
    }
  });
});
