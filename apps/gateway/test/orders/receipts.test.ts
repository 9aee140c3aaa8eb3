/**
 * The receipt of a paid order (decisions 1291, 1292): a VAT receipt with the seller's VAT number, the lines' rates and
 * net, VAT and gross per rate, as a page, its Markdown and a PDF read back; a full VAT invoice naming the buyer over
 * £250; a plain receipt saying the seller is not VAT-registered without a VAT number; none for an unpaid order or
 * for a reader who may not read the order.
 */
import { expect } from 'chai';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { DELIVERY, checkoutBody, expectCheckout, orderNumberOf, signUp } from '../../../checkout/test/support';
import {
  REDUCED,
  SELLER_ENV,
  STANDARD,
  documentPdf,
  mainText,
  paidOrder,
  receiptNumberOf,
  startReceiptStack,
} from '../support/receipts';

/** The receipt's PDF as `client` gets it, read back. */
const receiptPdf = (stack: Stack, client: HttpClient, reference: string) =>
  documentPdf(stack, client, `/orders/${reference}/receipt.pdf`);

describe('gateway: receipts of paid orders', () => {
  describe('with a VAT number', () => {
    let stack: Stack;
    before(async () => {
      stack = await startReceiptStack(SELLER_ENV);
    });
    after(async () => stack?.stop());

    it('gives a VAT receipt per rate as a page, its Markdown and a PDF, linked from the order page', async () => {
      const owner = stack.client();
      await signUp(owner);
      // £30.00 + £20.00 + £4.95 shipping, which takes the standard rate of the larger share of the goods.
      const reference = await paidOrder(stack, owner, 54.95, [
        { sku: STANDARD, quantity: 1 },
        { sku: REDUCED, quantity: 1 },
      ]);
      const lines = await stack
        .checkout!.db('order_lines')
        .orderBy('position')
        .where({
          order_id: (await stack.checkout!.db('orders').where({ reference }).first('id')).id,
        });
      expect(lines.map((line) => Number(line.vat_rate_basis_points))).to.deep.equal([2000, 500]);
      const receiptNumber = await receiptNumberOf(stack, reference);
      const orderNumber = await orderNumberOf(stack, reference);
      const paidAt = Number((await stack.checkout!.db('orders').where({ reference }).first('paid_at')).paid_at);
      const supplied = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/London',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
      }).format(paidAt);

      const orderPage = await owner.get<string>(`/orders/${reference}`);
      expect(orderPage.text).to.include(`href="/orders/${reference}/receipt"`);

      const page = await owner.get<string>(`/orders/${reference}/receipt`);
      expect(page.status, page.text).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('private, no-store');
      const text = mainText(page.text);
      expect(text)
        .to.include(`VAT receipt ${receiptNumber}`)
        .and.include('Storefront Research Supplies Ltd')
        .and.include('1 Lab Lane, Cambridge, CB1 1AA')
        .and.include('VAT number: GB123456789')
        .and.include(`Receipt number ${receiptNumber}`)
        .and.include(`Order number ${orderNumber}`)
        .and.include(`Date of supply`)
        .and.include(supplied)
        .and.include('Standard kit 10mg 1 £30.00 20 % £30.00')
        .and.include('Reduced kit 5mg 1 £20.00 5 % £20.00')
        .and.include('20 % £29.12 £5.83 £34.95')
        .and.include('5 % £19.05 £0.95 £20.00')
        .and.include('Total £48.17 £6.78 £54.95')
        .and.include('Total VAT £6.78')
        .and.include('Total paid £54.95');
      // Under £250 it is not a full invoice: the buyer is not named.
      expect(text).to.not.include(DELIVERY.name);
      // The footer names the seller on this page as on every other.
      expect(page.text).to.match(/<footer>[\s\S]*Company number: 01234567[\s\S]*<\/footer>/);
      const terms = await stack.client().get<string>('/terms');
      expect(mainText(terms.text))
        .to.include('Storefront Research Supplies Ltd')
        .and.include('accounts@shop.example.com')
        .and.include('VAT number: GB123456789');

      const markdown = await owner.get<string>(`/orders/${reference}/receipt`, { accept: 'text/markdown' });
      expect(markdown.headers.get('content-type')).to.match(/^text\/markdown/);
      expect(markdown.text)
        .to.include(`# VAT receipt ${receiptNumber}`)
        .and.include('GB123456789')
        .and.match(/\| 20 % \| £29\.12 \| £5\.83 \| £34\.95 \|/)
        .and.match(/\| 5 % \| £19\.05 \| £0\.95 \| £20\.00 \|/);

      const read = await receiptPdf(stack, owner, reference);
      expect(read.title).to.equal(`VAT receipt ${receiptNumber}`);
      expect(read.text)
        .to.include('Storefront Research Supplies Ltd')
        .and.include('VAT number: GB123456789')
        .and.include(`Receipt number: ${receiptNumber}`)
        .and.include(`Date of supply: `)
        .and.include('Standard kit 10mg 1 £30.00 20 % £30.00')
        .and.include('Reduced kit 5mg 1 £20.00 5 % £20.00')
        .and.include('20 % £29.12 £5.83 £34.95')
        .and.include('5 % £19.05 £0.95 £20.00')
        .and.include('Total £48.17 £6.78 £54.95');
    });

    it('over £250 is a full VAT invoice naming the buyer and the delivery address', async () => {
      const owner = stack.client();
      await signUp(owner);
      // 9 × £30.00 = £270.00, shipping free.
      const reference = await paidOrder(stack, owner, 270, [{ sku: STANDARD, quantity: 9 }]);
      const receiptNumber = await receiptNumberOf(stack, reference);
      const text = mainText((await owner.get<string>(`/orders/${reference}/receipt`)).text);
      expect(text)
        .to.include(`VAT invoice ${receiptNumber}`)
        .and.include(`Invoice number ${receiptNumber}`)
        .and.include(`Buyer ${DELIVERY.name} ${DELIVERY.line1} ${DELIVERY.city} ${DELIVERY.postcode}`)
        .and.include('20 % £225.00 £45.00 £270.00');
      const read = await receiptPdf(stack, owner, reference);
      expect(read.text)
        .to.include(`VAT invoice ${receiptNumber}`)
        .and.include(DELIVERY.name)
        .and.include(DELIVERY.line1)
        .and.include(DELIVERY.postcode)
        .and.include('20 % £225.00 £45.00 £270.00');
    });

    it('answers 404 for an unpaid order, and for an account order to anyone but its account', async () => {
      const owner = stack.client();
      await signUp(owner);
      const unpaid = await expectCheckout(owner, checkoutBody(34.95, [{ sku: STANDARD, quantity: 1 }]));
      for (const path of ['receipt', 'receipt.pdf']) {
        const res = await owner.get<string>(`/orders/${unpaid.checkout_reference}/${path}`, { accept: 'text/html' });
        expect(res.status, res.text).to.equal(404);
      }
      const paid = await paidOrder(stack, owner, 34.95, [{ sku: STANDARD, quantity: 1 }]);
      expect((await owner.get(`/orders/${paid}/receipt`)).status).to.equal(200);
      const stranger = stack.client();
      await signUp(stranger);
      for (const reader of [stranger, stack.client()])
        for (const path of ['receipt', 'receipt.pdf']) {
          const res = await reader.get<string>(`/orders/${paid}/${path}`, { accept: 'text/html' });
          expect(res.status, res.text).to.equal(404);
          expect(mainText(res.text)).to.not.match(/VAT receipt|R-0/);
        }
    });
  });

  describe('without a VAT number', () => {
    let stack: Stack;
    before(async () => {
      stack = await startReceiptStack({ SELLER_NAME: 'Storefront Research Supplies Ltd' });
    });
    after(async () => stack?.stop());

    it('says the seller is not registered for VAT and shows no VAT', async () => {
      const owner = stack.client();
      await signUp(owner);
      const reference = await paidOrder(stack, owner, 54.95, [
        { sku: STANDARD, quantity: 1 },
        { sku: REDUCED, quantity: 1 },
      ]);
      const receiptNumber = await receiptNumberOf(stack, reference);
      const text = mainText((await owner.get<string>(`/orders/${reference}/receipt`)).text);
      expect(text)
        .to.include(`Receipt ${receiptNumber}`)
        .and.include('The seller is not registered for VAT.')
        .and.include('Standard kit 10mg 1 £30.00 £30.00')
        .and.include('Total paid £54.95');
      expect(text).to.not.match(/VAT (receipt|invoice|number|by rate)|Total VAT|20 %/);
      const read = await receiptPdf(stack, owner, reference);
      expect(read.title).to.equal(`Receipt ${receiptNumber}`);
      expect(read.text).to.include('The seller is not registered for VAT.').and.include('Total paid £54.95');
      expect(read.text).to.not.match(/VAT number|Total VAT|20 %/);
    });
  });
});
