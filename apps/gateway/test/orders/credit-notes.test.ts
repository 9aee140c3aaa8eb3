/**
 * A refund's credit note (decisions 1293, 1294): numbered in its own series, a page, its Markdown and a PDF read back,
 * with the seller's VAT number, the receipt it corrects and net, VAT and gross per rate of what was refunded (units at
 * their rates; an amount alone over the receipt's rates in proportion); linked from the order page and the console (the
 * refund mail's link is read as sent in apps/checkout/test/order-mail.test.ts); without a VAT number it says the seller
 * is not registered; none for another reader or number.
 */
import { expect } from 'chai';
import { checkout } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { signUp } from '../../../checkout/test/support';
import { signedInStaff } from '../support/console';
import { OWNER, newKey } from '../../../checkout/test/refund-support';
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

/** £30.00 standard-rated, £20.00 at 5 %, £4.95 delivery: £54.95 paid. */
async function paidMixedOrder(stack: Stack): Promise<{ owner: HttpClient; reference: string }> {
  const owner = stack.client();
  await signUp(owner);
  const reference = await paidOrder(stack, owner, 54.95, [
    { sku: STANDARD, quantity: 1 },
    { sku: REDUCED, quantity: 1 },
  ]);
  return { owner, reference };
}

/** Refunds as the owner; answers the credit note's number as people read it. */
async function refund(
  stack: Stack,
  reference: string,
  amountPence: number,
  lines: Array<{ sku: string; quantity: number }>,
): Promise<string> {
  const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  try {
    const { refund: made } = await rpc.refundOrder(
      { checkoutReference: reference, amountPence, reason: 'Returned unopened', lines, idempotencyKey: newKey() },
      { staff: OWNER },
    );
    expect(made!.state).to.equal('succeeded');
    return `C-${String(made!.creditNoteNumber).padStart(6, '0')}`;
  } finally {
    rpc.close();
  }
}

describe('gateway: credit notes of refunds', () => {
  describe('with a VAT number', () => {
    let stack: Stack;
    before(async () => {
      stack = await startReceiptStack(SELLER_ENV);
    });
    after(async () => stack?.stop());

    it('gives each refund a numbered VAT credit note per rate: page, Markdown, PDF, linked on its order', async () => {
      const { owner, reference } = await paidMixedOrder(stack);
      const receiptNumber = await receiptNumberOf(stack, reference);
      // The reduced-rate unit back: £20.00 at 5 % (VAT 95.24 → 95p).
      const first = await refund(stack, reference, 2000, [{ sku: REDUCED, quantity: 1 }]);
      // £10.00 with no units: over the receipt's £34.95 at 20 % and £20.00 at 5 %, 636p and 364p.
      const second = await refund(stack, reference, 1000, []);
      expect(Number(second.slice(2))).to.equal(Number(first.slice(2)) + 1);

      const orderPage = await owner.get<string>(`/orders/${reference}`);
      for (const number of [first, second])
        expect(orderPage.text)
          .to.include(`href="/orders/${reference}/credit-notes/${number}"`)
          .and.include(`href="/orders/${reference}/credit-notes/${number}.pdf"`);

      const page = await owner.get<string>(`/orders/${reference}/credit-notes/${first}`);
      expect(page.status, page.text).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('private, no-store');
      expect(mainText(page.text))
        .to.include(`VAT credit note ${first}`)
        .and.include('Storefront Research Supplies Ltd')
        .and.include('VAT number: GB123456789')
        .and.include(`Corrects receipt ${receiptNumber}`)
        .and.include('Reduced kit 5mg 1 5 % £20.00')
        .and.include('5 % £19.05 £0.95 £20.00')
        .and.include('Total VAT credited £0.95')
        .and.include('Total refunded £20.00')
        .and.not.include('20 % ');
      const markdown = await owner.get<string>(`/orders/${reference}/credit-notes/${first}`, {
        accept: 'text/markdown',
      });
      expect(markdown.text)
        .to.include(`# VAT credit note ${first}`)
        .and.match(/\| 5 % \| £19\.05 \| £0\.95 \| £20\.00 \|/);

      const read = await documentPdf(stack, owner, `/orders/${reference}/credit-notes/${second}.pdf`);
      expect(read.title).to.equal(`VAT credit note ${second}`);
      expect(read.text)
        .to.include(`Credit note number: ${second}`)
        .and.include(`Corrects receipt: ${receiptNumber}`)
        .and.include('VAT number: GB123456789')
        .and.include('20 % £5.30 £1.06 £6.36')
        .and.include('5 % £3.47 £0.17 £3.64')
        .and.include('Total £8.77 £1.23 £10.00');
    });

    it("links each credit note from the console's order page, where any staff member reads its PDF", async () => {
      const { reference } = await paidMixedOrder(stack);
      const number = await refund(stack, reference, 3000, [{ sku: STANDARD, quantity: 1 }]);
      const staff = stack.client();
      await signedInStaff(stack, staff, `staff-${Date.now()}@shop.test`, 'staff');
      const path = `/console/orders/${reference}/credit-notes/${number}.pdf`;
      expect((await staff.get<string>(`/console/orders/${reference}`)).text).to.include(`href="${path}"`);
      const read = await documentPdf(stack, staff, path);
      expect(read.title).to.equal(`VAT credit note ${number}`);
      expect(read.text).to.include('Standard kit 10mg 1 20 % £30.00').and.include('20 % £25.00 £5.00 £30.00');
      expect((await staff.get(`/console/orders/${reference}/credit-notes/C-999999.pdf`)).status).to.equal(404);
      // Not for a customer.
      expect((await stack.client().get(path)).status).to.equal(303);
    });

    it('answers 404 for a number the order does not have, and for a reader who may not read the order', async () => {
      const { owner, reference } = await paidMixedOrder(stack);
      const number = await refund(stack, reference, 500, []);
      expect((await owner.get(`/orders/${reference}/credit-notes/C-999999`)).status).to.equal(404);
      const stranger = stack.client();
      await signUp(stranger);
      for (const path of [number, `${number}.pdf`]) {
        const res = await stranger.get<string>(`/orders/${reference}/credit-notes/${path}`, { accept: 'text/html' });
        expect(res.status, res.text).to.equal(404);
        expect(mainText(res.text)).to.not.include(number);
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
      const { owner, reference } = await paidMixedOrder(stack);
      const number = await refund(stack, reference, 3000, [{ sku: STANDARD, quantity: 1 }]);
      const text = mainText((await owner.get<string>(`/orders/${reference}/credit-notes/${number}`)).text);
      expect(text)
        .to.include(`Credit note ${number}`)
        .and.include('The seller is not registered for VAT.')
        .and.include('Standard kit 10mg 1 £30.00')
        .and.include('Total refunded £30.00');
      expect(text).to.not.match(/VAT (credit note|number|by rate)|Total VAT|20 %/);
      const read = await documentPdf(stack, owner, `/orders/${reference}/credit-notes/${number}.pdf`);
      expect(read.title).to.equal(`Credit note ${number}`);
      expect(read.text)
        .to.include('The seller is not registered for VAT.')
        .and.not.match(/VAT number|20 %/);
    });
  });
});
