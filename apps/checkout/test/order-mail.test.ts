/**
 * The order confirmation: queued with the payment that marks the order paid, delivered by a real
 * SMTP server once, however often the payment is confirmed and by however many replicas. The
 * refund notice likewise: queued with the refund, received once however often it is asked for.
 */
import { expect } from 'chai';
import { startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { checkout } from '@storefront/proto';
import {
  checkoutBody,
  completePayment,
  countRows,
  DELIVERY,
  expectCheckout,
  orderNumberOf,
  sku,
  startCheckoutReplica,
  startCheckoutStack,
} from './support';

// One £75.00 test size: shipping is free from £75.
const paidBody = () => checkoutBody(75, [{ sku: sku('p7500'), quantity: 1 }]);

const MAIL_ENV = {
  MAIL_POLL_INTERVAL_MS: '50',
  MAIL_RETRY_BASE_MS: '50',
  MAIL_RETRY_MAX_MS: '200',
  MAIL_FROM: 'Shop <orders@shop.test>',
  SELLER_NAME: 'Storefront Research Supplies Ltd',
  SELLER_ADDRESS: '1 Lab Lane, Cambridge, CB1 1AA',
  SELLER_EMAIL: 'accounts@shop.example.com',
  COMPANY_NUMBER: '01234567',
  VAT_NUMBER: 'GB123456789',
};

/** The seller's identity every mail carries after its footer (decision 1296). */
const SELLER_LINE =
  'Sold by Storefront Research Supplies Ltd · 1 Lab Lane, Cambridge, CB1 1AA · E-mail: accounts@shop.example.com · ' +
  'Company number: 01234567 · VAT number: GB123456789';

describe('checkout order confirmation mail', () => {
  let smtp: TestSmtpServer;
  let stack: Stack;
  let replica: Stack | undefined;

  before(async () => {
    smtp = await startTestSmtpServer();
    stack = await startCheckoutStack({ SMTP_URL: smtp.url, ...MAIL_ENV });
  });
  after(async () => {
    await stack?.stop();
    await smtp?.stop();
  });
  afterEach(async () => {
    await replica?.stop();
    replica = undefined;
    smtp.received.length = 0;
    await stack.paymentSandbox!.control.reset();
  });

  const settle = () => stack.checkout!.reconcileNow();

  it('sends one confirmation of a paid order: lines, total, delivery address, order and receipt links', async () => {
    const client = stack.client();
    const body = paidBody();
    const result = await expectCheckout(client, body);
    expect(await countRows(stack, 'mail_outbox')).to.equal(0);
    await completePayment(result.hosted_checkout_url, 'pay');
    await settle();
    await settle();
    const [mail] = await smtp.waitForMails(1);
    const reference = body.checkout_reference;
    const number = await orderNumberOf(stack, reference);
    expect(mail!.subject).to.equal(`Order ${number} is confirmed`);
    expect(mail!.text).to.contain(`payment for order ${reference}, order number ${number}.`);
    expect(mail!.to).to.have.property('text', DELIVERY.email);
    expect(mail!.text)
      // The product by its name and size when ordered, not its SKU (decision 1297).
      .to.contain('Pricing edge test kit p7500 × 1: £75.00')
      .and.contain('Total: £75.00')
      .and.contain('Shipping: Free');
    expect(mail!.text).to.contain(
      `Delivery to: ${DELIVERY.name}, ${DELIVERY.line1}, ${DELIVERY.city}, ${DELIVERY.postcode}, GB`,
    );
    expect(mail!.text).to.contain(`http://127.0.0.1:9/orders/${reference}`);
    expect(mail!.html).to.contain(`href="http://127.0.0.1:9/orders/${reference}"`);
    // The receipt of the payment (decision 1292).
    expect(mail!.text).to.contain(`Your receipt: http://127.0.0.1:9/orders/${reference}/receipt`);
    expect(mail!.html).to.contain(`href="http://127.0.0.1:9/orders/${reference}/receipt"`);
    // The right to cancel, with the page that explains it (decision 1321).
    expect(mail!.text).to.contain('Your right to cancel').and.contain('14 days');
    expect(mail!.html).to.contain('href="http://127.0.0.1:9/returns"');
    expect(String(mail!.text).trimEnd().endsWith(SELLER_LINE)).to.equal(true);
    expect(mail!.html).to.contain(`<p><small>${SELLER_LINE}</small></p></body>`);
    // Confirmed again (a notification, another pass): the order is paid already, so nothing more is queued.
    await stack.checkout!.store.markDueNow((await stack.checkout!.store.findByReference(reference))!.id);
    await settle();
    await stack.checkout!.sendMailNow();
    expect(smtp.received).to.have.length(1);
    expect(await countRows(stack, 'mail_outbox')).to.equal(1);
  });

  it('queues nothing for a declined order', async () => {
    const body = paidBody();
    const result = await expectCheckout(stack.client(), body);
    await completePayment(result.hosted_checkout_url, 'decline');
    await settle();
    expect((await stack.checkout!.store.findByReference(body.checkout_reference))!.status).to.equal('failed');
    expect(
      await countRows(stack, 'mail_outbox', { mail_key: `order-confirmation:${body.checkout_reference}` }),
    ).to.equal(0);
  });

  it('two replicas confirming the same payment at once send one confirmation', async () => {
    replica = await startCheckoutReplica(stack, { SMTP_URL: smtp.url, ...MAIL_ENV });
    const body = paidBody();
    const result = await expectCheckout(stack.client(), body);
    await completePayment(result.hosted_checkout_url, 'pay');
    await Promise.all([settle(), replica.checkout!.reconcileNow()]);
    await smtp.waitForMails(1);
    await Promise.all([stack.checkout!.sendMailNow(), replica.checkout!.sendMailNow()]);
    expect(smtp.received.map((mail) => mail.subject)).to.deep.equal([
      `Order ${await orderNumberOf(stack, body.checkout_reference)} is confirmed`,
    ]);
  });

  it('sends one refund notice per refund, with amount, reason and order link, however often asked for', async () => {
    replica = await startCheckoutReplica(stack, { SMTP_URL: smtp.url, ...MAIL_ENV });
    const body = paidBody();
    const result = await expectCheckout(stack.client(), body);
    await completePayment(result.hosted_checkout_url, 'pay');
    await settle();
    await smtp.waitForMails(1);
    const owner = {
      id: 'mail-test-owner',
      role: 'owner' as const,
      email: 'owner@shop.test',
      clientAddress: '192.0.2.40',
    };
    const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      const request = {
        checkoutReference: body.checkout_reference,
        amountPence: 1250,
        reason: 'One vial arrived damaged',
        lines: [],
        idempotencyKey: `mail-${body.checkout_reference}`,
      };
      // The same refund asked for twice at once (a double click): one refund, one notice.
      await Promise.all([rpc.refundOrder(request, { staff: owner }), rpc.refundOrder(request, { staff: owner })]);
    } finally {
      rpc.close();
    }
    await Promise.all([stack.checkout!.sendMailNow(), replica.checkout!.sendMailNow()]);
    const number = await orderNumberOf(stack, body.checkout_reference);
    const refunds = (await smtp.waitForMails(2)).filter(
      (mail) => mail.subject === `Refund of £12.50 for order ${number}`,
    );
    expect(refunds).to.have.length(1);
    expect(refunds[0]!.to).to.have.property('text', DELIVERY.email);
    expect(refunds[0]!.text)
      .to.contain('One vial arrived damaged')
      .and.contain(`http://127.0.0.1:9/orders/${body.checkout_reference}`);
    // Its credit note (decision 1293), and the seller after the footer as in every mail.
    const { credit_note_number: creditNote } = await stack
      .checkout!.db('refunds')
      .where({ idempotency_key: `mail-${body.checkout_reference}` })
      .first('credit_note_number');
    expect(refunds[0]!.text)
      .to.contain(
        `Credit note C-${String(creditNote).padStart(6, '0')}: http://127.0.0.1:9/orders/` +
          `${body.checkout_reference}/credit-notes/C-${String(creditNote).padStart(6, '0')}`,
      )
      .and.contain(SELLER_LINE);
    await Promise.all([stack.checkout!.sendMailNow(), replica.checkout!.sendMailNow()]);
    expect(smtp.received).to.have.length(2);
  });
});
