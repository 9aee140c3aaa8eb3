/**
 * Trading as a UK shop in Chromium, every control found by its accessible name: the checkout page refuses an order
 * without the two buyer statements; a guest ticks them, pays on the sandbox's hosted page and downloads the receipt
 * PDF; an order placed through the API is held until its person confirms on the order page, and the console cannot
 * dispatch it before; a customer cancels before dispatch and gets everything back, the stock too; a delivered order is
 * returned, received in the console, and refunded with a credit note PDF and one refund mail (a real SMTP server). axe
 * checks the order page and the console's returns. Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { BUYER_CONFIRMATION_STATEMENTS } from '@storefront/formats';
import { checkout } from '@storefront/proto';
import { expectAccessible, readPdf, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import { OWNER } from '../../../checkout/test/refund-support';
import {
  EDGE_PRICES,
  EDGE_PRODUCT,
  checkoutBody,
  completePayment,
  countRows,
  eventually,
  expectCheckout,
  orderNumberOf,
  sku,
} from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';
import { signedInStaff } from '../support/console';
import { addToBasket, checkOutAndPay } from '../support/shopper';

const PRODUCT_PATH = `/products/${EDGE_PRODUCT}`;
const DELIVERY = {
  'Full name': 'Rosalind Franklin',
  Email: 'rosalind@example.com',
  'Address line 1': '4 Lab Lane',
  City: 'Cambridge',
  Postcode: 'CB2 1TN',
};
/** Long enough for a second refund mail, were one sent, to reach the SMTP server (mail is polled every 50 ms). */
const SECOND_MAIL_WAIT_MS = 1500;

describe('trading as a UK shop in Chromium: statements, receipt, held orders, cancelling and returns', function () {
  this.timeout(120_000);
  let smtp: TestSmtpServer;
  // Filled in before the stack starts, which reads it then.
  const env: Record<string, string> = { MAIL_POLL_INTERVAL_MS: '50', CATALOG_REFRESH_MS: '100' };
  before(async () => {
    smtp = await startTestSmtpServer();
    env.SMTP_URL = smtp.url;
  });
  after(async () => smtp?.stop());
  const site = browserStackForSuite({ env });
  let owner: BrowserContext;
  before(async () => {
    await eventually(async () => (await site.stack.client().get(PRODUCT_PATH)).status === 200);
    const ownerClient = site.stack.client();
    await signedInStaff(site.stack, ownerClient, 'trading-owner@shop.test', 'owner');
    owner = await site.newContext({ client: ownerClient, cookie: 'svc_staff' });
  });
  after(async () => owner?.close());

  /** A fresh shopper's browser, closed after `journey`. */
  async function asShopper(journey: (page: Page) => Promise<void>): Promise<void> {
    const context = await site.newContext();
    try {
      await journey(await context.newPage());
    } finally {
      await context.close();
    }
  }

  /** On the product page: `quantity` of `size` in the basket, then on to the checkout page. */
  async function toCheckout(page: Page, size: string, quantity: number): Promise<void> {
    await page.goto(PRODUCT_PATH);
    await addToBasket(page, size, quantity);
    await page.getByRole('button', { name: 'Checkout' }).click();
    await page.waitForURL((url) => url.pathname === '/checkout');
  }

  const shop = () => ({ origin: site.origin, sandboxUrl: site.stack.paymentSandbox!.url });
  const refundedOn = (page: Page) =>
    page
      .getByRole('row', { name: /^Refunded / })
      .getByRole('cell')
      .innerText();
  /** GET /api/stock's units of a stock-limited SKU, as the page's browser reads them. */
  async function stockOf(page: Page, stockSku: string): Promise<number> {
    const stock = (await (await page.request.get('/api/stock')).json()) as Record<string, number>;
    expect(stock).to.have.property(stockSku);
    return stock[stockSku]!;
  }

  /** The PDF a link on the page points at, fetched with the page's cookies and read back as text. */
  async function pdfTextOf(page: Page, linkName: string | RegExp): Promise<string> {
    const href = await page.getByRole('link', { name: linkName }).getAttribute('href');
    const download = await page.request.get(href!);
    expect(download.status()).to.equal(200);
    expect(download.headers()['content-type']).to.equal('application/pdf');
    return (await readPdf(await download.body())).text;
  }

  /** In the console: dispatches the order from its page, or answers the refusal the page shows. */
  async function dispatchInConsole(reference: string): Promise<string | undefined> {
    const page = await owner.newPage();
    try {
      await page.goto(`/console/orders/${encodeURIComponent(reference)}`);
      await page.getByLabel('Carrier').fill('Royal Mail');
      await page.getByLabel('Tracking number (letters, digits, spaces, dashes)').fill('RM 1299 GB');
      await page.getByRole('button', { name: 'Dispatch and email the customer' }).click();
      await page.getByRole('alert').or(page.getByText('with Royal Mail, tracking RM 1299 GB')).waitFor();
      return (await page.getByRole('alert').count()) > 0 ? page.getByRole('alert').innerText() : undefined;
    } finally {
      await page.close();
    }
  }

  it('refuses to place the order without the two buyer statements, naming them', () =>
    asShopper(async (page) => {
      await toCheckout(page, 'p7500', 1);
      const ordersBefore = await countRows(site.stack, 'orders');
      for (const [label, value] of Object.entries(DELIVERY)) await page.getByLabel(label, { exact: true }).fill(value);
      // Sent as a browser would without its own check of the required boxes, so the server's refusal shows.
      await Promise.all([
        page.waitForEvent('load'),
        page
          .getByRole('button', { name: 'Place order and pay' })
          .evaluate((button) => (button as unknown as { form: { submit(): void } }).form.submit()),
      ]);
      const refusal = await page.getByRole('alert').innerText();
      for (const { label } of BUYER_CONFIRMATION_STATEMENTS) {
        expect(refusal).to.contain(label);
        expect(await page.getByRole('checkbox', { name: label }).getAttribute('aria-invalid')).to.equal('true');
      }
      expect(new URL(page.url()).pathname).to.equal('/checkout');
      expect(await countRows(site.stack, 'orders'), 'no order placed').to.equal(ordersBefore);
    }));

  it('takes a guest order with both statements ticked, paid on the hosted page, and its receipt PDF', () =>
    asShopper(async (page) => {
      await toCheckout(page, 'p7500', 1);
      const reference = await checkOutAndPay(page, shop(), DELIVERY, '£75.00');
      await expectAccessible(page);
      await page.getByRole('link', { name: 'Receipt', exact: true }).click();
      await page.waitForURL(`**/orders/${reference}/receipt`);
      const heading = await page.getByRole('heading', { level: 1 }).innerText();
      const receiptNumber = /(R-\d{6})$/.exec(heading)?.[1];
      expect(receiptNumber, heading).to.be.a('string');
      const text = await pdfTextOf(page, `${heading} (PDF)`);
      expect(text).to.contain(receiptNumber).and.contain('£75.00');
    }));

  it('holds an order placed through the API until its person confirms it on its page; then it ships', async () => {
    const placed = await expectCheckout(
      site.stack.client(),
      checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]),
    );
    await completePayment(placed.hosted_checkout_url, 'pay');
    await site.stack.checkout!.reconcileNow();
    await asShopper(async (page) => {
      await page.goto(`/orders/${placed.checkout_reference}`);
      await page.getByRole('heading', { name: 'Confirm to release your order' }).waitFor();
      expect(await dispatchInConsole(placed.checkout_reference)).to.contain('has not yet confirmed');

      for (const { label } of BUYER_CONFIRMATION_STATEMENTS) await page.getByRole('checkbox', { name: label }).check();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.waitForURL(`**/orders/${placed.checkout_reference}`);
      expect(await page.getByRole('heading', { name: 'Confirm to release your order' }).count()).to.equal(0);
      expect(await dispatchInConsole(placed.checkout_reference)).to.equal(undefined);
      await page.reload();
      await page.getByText('Dispatched with Royal Mail').waitFor();
    });
  });

  it('cancels an order before dispatch from its page: all paid, delivery included, and the stock come back', () =>
    asShopper(async (page) => {
      const before = await stockOf(page, sku('low'));
      // One unit of the stock-limited size (a browser's address holds at most one): £12.00 and £4.95 delivery.
      await toCheckout(page, 'low', 1);
      const reference = await checkOutAndPay(page, shop(), DELIVERY, '£16.95');
      expect(await stockOf(page, sku('low'))).to.equal(before - 1);
      await page.getByRole('button', { name: 'Cancel order and refund me' }).click();
      await page.getByText('You cancelled this order').waitFor();
      expect(await refundedOn(page)).to.equal('£16.95');
      expect(await stockOf(page, sku('low'))).to.equal(before);
      expect(new URL(page.url()).pathname).to.equal(`/orders/${reference}`);
    }));

  it('returns a delivered order: received in the console, refunded with a credit note PDF and one refund mail', () =>
    asShopper(async (page) => {
      await toCheckout(page, 'p1005', 2);
      // 2 × £10.05 and £4.95 delivery; one unit comes back.
      const reference = await checkOutAndPay(page, shop(), DELIVERY, '£25.05');
      const rpc = site.stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
      try {
        await rpc.dispatchOrder(
          { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 1298 GB' },
          { staff: OWNER },
        );
        await rpc.markOrderDelivered({ checkoutReference: reference }, { staff: OWNER });
      } finally {
        rpc.close();
      }

      await page.reload();
      await page.getByLabel(/^Units of .* to return \(at most 2\)$/).fill('1');
      await page.getByRole('button', { name: 'Start a return' }).click();
      await page.getByText('waiting for the goods to arrive').waitFor();
      await expectAccessible(page);

      const number = await orderNumberOf(site.stack, reference);
      const consolePage = await owner.newPage();
      try {
        await consolePage.goto('/console/returns');
        await expectAccessible(consolePage);
        await consolePage.getByRole('button', { name: `Goods received: refund the return of order ${number}` }).click();
        await consolePage
          .getByRole('row', { name: new RegExp(number) })
          .getByText('Received and refunded')
          .waitFor();
        await expectAccessible(consolePage);
      } finally {
        await consolePage.close();
      }

      await page.reload();
      await page.getByText('received and refunded').waitFor();
      expect(await refundedOn(page)).to.equal('£10.05');
      const noteLink = page.getByRole('link', { name: /^Credit note C-\d{6}$/ });
      const note = /C-\d{6}/.exec(await noteLink.innerText())![0];
      await noteLink.click();
      await page.waitForURL(`**/orders/${reference}/credit-notes/${note}`);
      const text = await pdfTextOf(page, `${await page.getByRole('heading', { level: 1 }).innerText()} (PDF)`);
      expect(text).to.contain(note).and.contain('£10.05');

      const subject = `Refund of £10.05 for order ${number}`;
      const refundMails = () => smtp.received.filter((mail) => mail.subject === subject);
      await eventually(async () => refundMails().length > 0, 10_000, subject);
      await new Promise((resolve) => setTimeout(resolve, SECOND_MAIL_WAIT_MS));
      expect(refundMails()).to.have.length(1);
      expect(refundMails()[0]!.to).to.have.property('text', DELIVERY.Email);
    }));
});
