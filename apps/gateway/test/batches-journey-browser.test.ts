/**
 * A batch from delivery to recall in Chromium, as the owner and a customer meet it, every control found by its
 * accessible name: the owner receives a batch of a stock-limited size with its certificate PDF in the console; a
 * customer sees its purity and certificate on the product page and buys it on the sandbox's hosted page; the owner
 * dispatches the order; the customer finds the batch on the order page, in GET /api/orders/{reference} and in the
 * dispatch mail (a real SMTP server), opens its certificate page and downloads the PDF; the owner quarantines the batch
 * and its units leave the shop; the order is on the batch's recall list. Needs Debian's `chromium` at
 * /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { readPdf, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import { eventually } from '../../checkout/test/support';
import { browserStackForSuite } from './support/browser-stack';
import { signedInStaff } from './support/console';
import { addToBasket, checkOutAndPay } from './support/shopper';

const SKU = 'journey-kit-vial';
const PRODUCT_PATH = '/products/journey-kit';
const BATCH = 'JOURNEY-1';
const RECEIVED_UNITS = 5;
const DELIVERY = {
  'Full name': 'Ada Lovelace',
  Email: 'ada@example.com',
  'Address line 1': '12 St James Square',
  City: 'London',
  Postcode: 'SW1Y 4JH',
};

/** A one-page PDF whose text is `text`, as a laboratory's certificate would be (readPdf reads it back). */
function certificatePdf(text: string): Buffer {
  const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = pdf.length;
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

interface CatalogSize {
  sku: string;
  inStock: boolean;
  batch: { number: string; purity: number; testedOn: string; certificateUrl: string | null } | null;
}
interface OrderLine {
  sku: string;
  batches: Array<{ number: string; quantity: number; certificateUrl: string | null }>;
}

describe('a batch from delivery to recall in Chromium, as the owner and a customer', function () {
  this.timeout(180_000);
  let smtp: TestSmtpServer;
  // Filled in before the stack starts, which reads it then.
  const env: Record<string, string> = { MAIL_POLL_INTERVAL_MS: '50', CATALOG_REFRESH_MS: '100' };
  before(async () => {
    smtp = await startTestSmtpServer();
    env.SMTP_URL = smtp.url;
  });
  after(async () => smtp?.stop());
  const site = browserStackForSuite({ env });
  before(async () => {
    await site.stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: [
          {
            id: 'journey-kit',
            name: 'Journey kit',
            description: 'Test',
            sizes: [{ size: 'vial', price: 12, stock: 0 }],
          },
        ],
      }),
    );
  });

  /** The size's label on the product page, once it says `words` (the gateway refreshes its catalog copy). */
  async function sizeLabelSaying(page: Page, words: string): Promise<string> {
    let label = '';
    await eventually(
      async () => {
        await page.goto(PRODUCT_PATH);
        label = await page.locator('label[for="size-0"]').innerText();
        return label.includes(words);
      },
      5000,
      `the size "${words}"`,
    );
    return label;
  }
  async function catalogSize(page: Page): Promise<CatalogSize> {
    const catalog = (await (await page.request.get('/products.json')).json()) as {
      products: Array<{ sizes: CatalogSize[] }>;
    };
    return catalog.products.flatMap((product) => product.sizes).find((size) => size.sku === SKU)!;
  }

  it('receives, sells, ships, looks up, quarantines and lists a batch for recall', async () => {
    const ownerClient = site.stack.client();
    await signedInStaff(site.stack, ownerClient, 'journey-owner@shop.test', 'owner');
    const ownerContext = await site.newContext({ client: ownerClient, cookie: 'svc_staff' });
    const customerContext = await site.newContext();
    try {
      const owner = await ownerContext.newPage();
      const customer = await customerContext.newPage();

      // The owner receives the delivery with its certificate.
      await owner.goto('/console');
      await owner
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Batches', exact: true })
        .click();
      await owner.getByRole('link', { name: `Receive a batch of ${SKU}` }).click();
      await owner.getByRole('heading', { name: 'Receive a batch' }).waitFor();
      await owner.getByLabel('Batch number (as printed on the vial)').fill(BATCH.toLowerCase());
      await owner.getByLabel('Units delivered').fill(String(RECEIVED_UNITS));
      await owner.getByLabel('HPLC purity in percent, such as 99.42').fill('99.5');
      await owner.getByLabel('Test date (YYYY-MM-DD)').fill('2026-11-02');
      await owner.getByLabel('Testing laboratory').fill('Journey Lab');
      await owner.getByLabel('Retest or expiry date (YYYY-MM-DD)').fill('2028-11-02');
      await owner.getByLabel('Certificate of analysis (PDF, at most 5 MB)').setInputFiles({
        name: 'certificate.pdf',
        mimeType: 'application/pdf',
        buffer: certificatePdf(`Certificate of analysis ${BATCH}`),
      });
      await owner.getByRole('button', { name: 'Receive the batch' }).click();
      await owner
        .getByRole('status')
        .filter({ hasText: `Received batch ${BATCH}.` })
        .waitFor();

      // The customer sees the batch's analysis and certificate on the product page and in /products.json.
      expect(await sizeLabelSaying(customer, `${RECEIVED_UNITS} left`)).to.match(/^vial, £12\.00, 5 left/);
      const batchRow = customer.getByRole('region', { name: 'Batches now sold' }).getByRole('row', { name: /vial/ });
      await batchRow.getByRole('link', { name: BATCH, exact: true }).waitFor();
      expect(await batchRow.innerText())
        .to.contain('99.50 %')
        .and.contain('2026-11-02');
      await batchRow.getByRole('link', { name: `Certificate of batch ${BATCH} (PDF)` }).waitFor();
      expect((await catalogSize(customer)).batch).to.deep.equal({
        number: BATCH,
        purity: 99.5,
        testedOn: '2026-11-02',
        certificateUrl: `${site.origin}/certificates/${BATCH}.pdf`,
      });

      // ...and buys one.
      await addToBasket(customer, 'vial', 1);
      await customer.getByRole('button', { name: 'Checkout' }).click();
      await customer.waitForURL((url) => url.pathname === '/checkout');
      const shop = { origin: site.origin, sandboxUrl: site.stack.paymentSandbox!.url };
      const reference = await checkOutAndPay(customer, shop, DELIVERY);

      // The owner dispatches it as allocated: from the one batch.
      await owner.goto(`/console/orders/${encodeURIComponent(reference)}`);
      expect(await owner.getByLabel(`Batch of ${SKU} packed (1 units)`).inputValue()).to.equal('');
      await owner.getByLabel('Carrier').fill('Royal Mail');
      await owner.getByLabel('Tracking number (letters, digits, spaces, dashes)').fill('RM 2611');
      await owner.getByRole('button', { name: 'Dispatch and email the customer' }).click();
      await owner.getByRole('heading', { name: 'Batches shipped' }).waitFor();

      // The customer finds the batch on the order page, in the API and in the dispatch mail.
      await customer.reload();
      await customer.getByText('Dispatched', { exact: true }).waitFor();
      const shipped = customer.getByRole('list', { name: 'Batches' });
      expect(await shipped.innerText()).to.contain(`${BATCH} × 1`);
      await shipped.getByRole('link', { name: `certificate of batch ${BATCH} (PDF)` }).waitFor();
      const api = await customer.request.get(`/api/orders/${encodeURIComponent(reference)}`);
      expect(api.status(), await api.text()).to.equal(200);
      const { items } = (await api.json()) as { items: OrderLine[] };
      expect(items.map(({ sku, batches }) => ({ sku, batches }))).to.deep.equal([
        {
          sku: SKU,
          batches: [{ number: BATCH, quantity: 1, certificateUrl: `${site.origin}/certificates/${BATCH}.pdf` }],
        },
      ]);
      const subject = `Order ${(await site.stack.checkout!.store.findByReference(reference))!.number} is on its way`;
      await eventually(async () => smtp.received.some((mail) => mail.subject === subject), 10_000, subject);
      const mail = smtp.received.find((candidate) => candidate.subject === subject)!;
      expect(mail.to).to.have.property('text', DELIVERY.Email);
      expect(String(mail.text)).to.contain(`Batch ${BATCH} certificate: ${site.origin}/certificates/${BATCH}`);
      expect(String(mail.html)).to.contain(`href="${site.origin}/certificates/${BATCH}"`);

      // ...opens the batch's certificate page from the order and downloads the PDF.
      await shipped.getByRole('link', { name: BATCH, exact: true }).click();
      await customer.getByRole('heading', { name: `Batch ${BATCH}`, level: 1 }).waitFor();
      expect(await customer.getByRole('row', { name: /HPLC purity/ }).innerText()).to.contain('99.50 %');
      expect(await customer.getByRole('row', { name: /Laboratory/ }).innerText()).to.contain('Journey Lab');
      const pdfLink = customer.getByRole('link', { name: `Certificate of analysis for batch ${BATCH} (PDF)` });
      const download = await customer.request.get((await pdfLink.getAttribute('href'))!);
      expect(download.status()).to.equal(200);
      expect(download.headers()['content-type']).to.equal('application/pdf');
      expect((await readPdf(await download.body())).text).to.contain(`Certificate of analysis ${BATCH}`);

      // The owner quarantines the batch: its units leave the shop.
      await owner.goto('/console/batches');
      await owner.getByRole('button', { name: `Quarantine ${BATCH}` }).click();
      await owner.getByRole('heading', { name: `Quarantine batch ${BATCH}?` }).waitFor();
      await owner.getByLabel('Why (kept in the audit log, optional)').fill('Seal broken on arrival');
      await owner.getByRole('button', { name: `Yes, quarantine ${BATCH}` }).click();
      await owner
        .getByRole('status')
        .filter({ hasText: `Quarantined batch ${BATCH}.` })
        .waitFor();
      expect(await sizeLabelSaying(customer, 'Sold out')).to.equal('vial, £12.00, Sold out');
      expect(await customer.getByRole('radio', { name: /^vial, £12\.00/ }).isDisabled()).to.equal(true);
      expect(await customer.getByRole('region', { name: 'Batches now sold' }).count()).to.equal(0);
      await eventually(async () => (await catalogSize(customer)).inStock === false, 5000, 'the size out of stock');

      // The order is on the batch's recall list.
      await owner.getByRole('link', { name: BATCH, exact: true }).click();
      await owner.getByRole('heading', { name: `Batch ${BATCH}`, level: 1 }).waitFor();
      const recallList = owner.getByRole('region', { name: 'Orders that shipped units of this batch' });
      const orderRow = recallList.getByRole('row', { name: new RegExp(reference) });
      await orderRow.getByRole('link', { name: reference }).waitFor();
      expect(await orderRow.innerText()).to.contain(DELIVERY.Email);
      expect(await recallList.getByRole('row').count(), 'a header and the one order').to.equal(2);
    } finally {
      await ownerContext.close();
      await customerContext.close();
    }
  });
});
