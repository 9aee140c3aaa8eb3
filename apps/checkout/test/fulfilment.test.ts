/**
 * A staff member's dispatch, delivery and cancel, straight to checkout's facade: each state rule
 * and its refusal, idempotent repeats (no second mail or audit row), the dispatch notice received
 * once by a real SMTP server, a cancel giving stock and code back at once, a payment that wins the
 * race against a cancel, and the ops commands doing the same operations.
 */
import { expect } from 'chai';
import type { StaffIdentity } from '@storefront/caller-token';
import { AppError } from '@storefront/errors';
import type { RpcClient } from '@storefront/grpc';
import { checkout } from '@storefront/proto';
import { opsEnvFor, runOpsJson, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { checkoutOps } from '../src/ops/commands';
import {
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  countRows,
  createCheckout,
  DELIVERY,
  eventually,
  expectCheckout,
  orderNumberOf,
  providerCheckout,
  refusal,
  startCheckoutStack,
  stockOf,
  type CheckoutResult,
} from './support';

const PACKER: StaffIdentity = {
  id: 'staff-packer',
  role: 'staff',
  email: 'packer@shop.test',
  clientAddress: '192.0.2.20',
};
const OWNER: StaffIdentity = {
  id: 'staff-owner',
  role: 'owner',
  email: 'owner@shop.test',
  clientAddress: '192.0.2.21',
};
const MAIL_ENV = {
  MAIL_POLL_INTERVAL_MS: '50',
  MAIL_RETRY_BASE_MS: '50',
  MAIL_RETRY_MAX_MS: '200',
  MAIL_FROM: 'Shop <orders@shop.test>',
};
/** A size with stock counted (so a stock read shows what is held) and plenty of it. */
const STOCKED_SKU = 'dispatch-kit-stocked';
// One £12.00 unit and £4.95 shipping.
const stockedBody = () => checkoutBody(16.95, [{ sku: STOCKED_SKU, quantity: 1 }]);

describe('checkout: dispatch, delivery and cancel by staff', () => {
  let smtp: TestSmtpServer;
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;

  before(async () => {
    smtp = await startTestSmtpServer();
    stack = await startCheckoutStack({ SMTP_URL: smtp.url, ...MAIL_ENV });
    await stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: [
          {
            id: 'dispatch-kit',
            name: 'Dispatch test kit',
            description: 'Test product',
            sizes: [{ size: 'stocked', price: 12, stock: 1000 }],
          },
        ],
      }),
    );
    rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  });
  after(async () => {
    rpc?.close();
    await stack?.stop();
    await smtp?.stop();
  });
  /** The mails received so far with this subject, once as many as expected have come. */
  const mailsTitled = async (subject: string, count = 1) => {
    await eventually(
      async () => smtp.received.filter((mail) => mail.subject === subject).length >= count,
      5000,
      `${count} mail(s) "${subject}"`,
    );
    return smtp.received.filter((mail) => mail.subject === subject);
  };

  const open = async (body = stockedBody()): Promise<CheckoutResult> => expectCheckout(stack.client(), body);
  const paid = async (body = stockedBody()): Promise<string> => {
    const created = await open(body);
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    await confirmOnOrderPage(stack.client(), body.checkout_reference);
    return body.checkout_reference;
  };
  const dispatch = (reference: string, carrier = 'Royal Mail', trackingNumber = 'RM 1234-5678 GB', staff = PACKER) =>
    rpc.dispatchOrder({ checkoutReference: reference, carrier, trackingNumber }, { staff });
  const providerStatusOf = async (id: string) => (await providerCheckout(stack, id)).status;
  const audit = (reference: string, action: string) =>
    countRows(stack, 'staff_actions', { subject: reference, action });

  it('dispatches a paid order once: status, details, a mail with carrier, tracking, link; an audit row', async () => {
    const reference = await paid();
    const { order } = await dispatch(reference);
    expect(order!.details!.summary!.status).to.equal('dispatched');
    expect(order!.details!.dispatch).to.deep.include({
      carrier: 'Royal Mail',
      trackingNumber: 'RM 1234-5678 GB',
      deliveredAt: '',
    });
    expect(order!.dispatchedBy).to.equal(PACKER.email);
    const again = await dispatch(reference, ' Royal Mail ', 'RM 1234-5678 GB ', OWNER);
    expect(again.order!.details!.dispatch).to.deep.equal(order!.details!.dispatch);
    expect(again.order!.dispatchedBy, 'the repeat records nobody new').to.equal(PACKER.email);

    const onItsWay = `Order ${await orderNumberOf(stack, reference)} is on its way`;
    const [mail] = await mailsTitled(onItsWay);
    expect(mail!.to).to.have.property('text', DELIVERY.email);
    expect(mail!.text)
      .to.contain('Carrier: Royal Mail')
      .and.contain('Tracking number: RM 1234-5678 GB')
      .and.contain(`http://127.0.0.1:9/orders/${reference}`);
    // The units' batch, with its certificate's public page; inventory recorded the units as shipped.
    const text = String(mail!.text);
    const batch = /Batch (\S+) certificate: http:\/\/127\.0\.0\.1:9\/certificates\/(\S+)/.exec(text);
    expect(batch, text).to.not.equal(null);
    expect(batch![2]).to.equal(encodeURIComponent(batch![1]!));
    const allocation = await stack.inventory!.reservations.allocations.ofOrder(reference);
    expect(allocation.shippedAt).to.be.a('number');
    expect(allocation.lines[0]!.batches.map((taken) => taken.number)).to.deep.equal([batch![1]]);
    await stack.checkout!.sendMailNow();
    expect(await mailsTitled(onItsWay)).to.have.length(1);
    expect(await countRows(stack, 'mail_outbox', { mail_key: `dispatch:${reference}` })).to.equal(1);
    expect(await audit(reference, 'order_dispatched')).to.equal(1);
    const [row] = await stack.checkout!.db('staff_actions').where({ subject: reference, action: 'order_dispatched' });
    expect(row).to.include({ staff_email: PACKER.email, role: 'staff', client_address: PACKER.clientAddress });
    expect(JSON.parse(row!.after_json as string)).to.deep.equal({
      status: 'dispatched',
      carrier: 'Royal Mail',
      trackingNumber: 'RM 1234-5678 GB',
    });
  });

  it('refuses other details for a dispatched order, and bad or missing details, naming the field', async () => {
    const reference = await paid();
    for (const [carrier, trackingNumber, code] of [
      ['', 'RM1', 'invalid_carrier'],
      ['x'.repeat(61), 'RM1', 'invalid_carrier'],
      ['Royal Mail\r\nBcc: victim@example.com', 'RM1', 'invalid_carrier'],
      ['Royal Mail\u0085Bcc: victim@example.com', 'RM1', 'invalid_carrier'],
      ['Royal\tMail', 'RM1', 'invalid_carrier'],
      ['Royal Mail', '', 'invalid_tracking_number'],
      ['Royal Mail', 'RM<1>', 'invalid_tracking_number'],
      ['Royal Mail', '1'.repeat(61), 'invalid_tracking_number'],
    ] as const) {
      const refused = await refusal(dispatch(reference, carrier, trackingNumber));
      expect(refused, `${carrier} / ${trackingNumber}`).to.include({ kind: 'invalid_argument', code });
    }
    expect((await stack.checkout!.store.findByReference(reference))!.status).to.equal('paid');
    await dispatch(reference, 'DPD', '15501234');
    const other = await refusal(dispatch(reference, 'DPD', '15509999'));
    expect(other).to.include({ kind: 'conflict', code: 'order_already_dispatched' });
    expect(other.detail).to.contain('15501234');
    expect(await refusal(dispatch('no-such-order'))).to.include({ kind: 'not_found', code: 'order_not_found' });
  });

  it('refuses to dispatch, deliver or cancel an order in the wrong state (409 naming the rule)', async () => {
    const unpaid = stockedBody();
    await open(unpaid);
    const notDispatchable = await refusal(dispatch(unpaid.checkout_reference));
    expect(notDispatchable).to.include({ kind: 'conflict', code: 'order_not_dispatchable' });
    expect(notDispatchable.detail).to.contain('pending_payment');
    expect(
      await refusal(rpc.markOrderDelivered({ checkoutReference: unpaid.checkout_reference }, { staff: PACKER })),
    ).to.include({ code: 'order_not_deliverable' });

    const reference = await paid();
    expect(await refusal(rpc.markOrderDelivered({ checkoutReference: reference }, { staff: PACKER }))).to.include({
      kind: 'conflict',
      code: 'order_not_deliverable',
    });
    const notCancellable = await refusal(rpc.cancelOrder({ checkoutReference: reference }, { staff: PACKER }));
    expect(notCancellable).to.include({ kind: 'conflict', code: 'order_not_cancellable' });
    expect(notCancellable.detail).to.contain('is paid');

    const declined = stockedBody();
    await completePayment((await open(declined)).hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    expect(await refusal(dispatch(declined.checkout_reference))).to.include({ code: 'order_not_dispatchable' });
    expect(
      await refusal(rpc.cancelOrder({ checkoutReference: declined.checkout_reference }, { staff: PACKER })),
    ).to.include({ code: 'order_not_cancellable' });
    expect(await audit(reference, 'order_cancelled')).to.equal(0);
  });

  it('refuses to dispatch a paid order whose stock and points are still being settled', async () => {
    const reference = await paid();
    await stack.checkout!.db('orders').where({ reference }).update({ closed_at: null });
    expect(await refusal(dispatch(reference))).to.include({ kind: 'conflict', code: 'order_not_dispatchable' });
    await stack.checkout!.reconcileNow();
    expect((await dispatch(reference)).order!.details!.summary!.status).to.equal('dispatched');
  });

  it('marks a dispatched order delivered once, keeping its dispatch', async () => {
    const reference = await paid();
    await dispatch(reference);
    const { order } = await rpc.markOrderDelivered({ checkoutReference: reference }, { staff: OWNER });
    expect(order!.details!.summary!.status).to.equal('delivered');
    expect(order!.details!.dispatch).to.include({ carrier: 'Royal Mail' });
    expect(Date.parse(order!.details!.dispatch!.deliveredAt)).to.be.a('number').and.not.NaN;
    const again = await rpc.markOrderDelivered({ checkoutReference: reference }, { staff: OWNER });
    expect(again.order!.details!.dispatch!.deliveredAt).to.equal(order!.details!.dispatch!.deliveredAt);
    expect(await audit(reference, 'order_delivered')).to.equal(1);
    expect(await refusal(dispatch(reference, 'DPD', '1'))).to.include({ code: 'order_already_dispatched' });
  });

  it('cancels an unpaid order: the payment link stops, its stock and promo hold are back at once, once', async () => {
    await stack.checkout!.store.savePromoCodes([
      { code: 'CANCELME', discountBasisPoints: 1000, activeFrom: 0, maxRedemptions: 5 },
    ]);
    const before = await stockOf(stack.client(), STOCKED_SKU);
    // £12.00 less 10% + £4.95.
    const body = checkoutBody(15.75, [{ sku: STOCKED_SKU, quantity: 1 }], { promo_code: 'CANCELME' });
    const created = await open(body);
    expect(await stockOf(stack.client(), STOCKED_SKU)).to.equal(before - 1);
    expect(await countRows(stack, 'promo_holds', { code: 'CANCELME' })).to.equal(1);

    const { order } = await rpc.cancelOrder({ checkoutReference: body.checkout_reference }, { staff: PACKER });
    expect(order!.details!.summary!.status).to.equal('cancelled');
    expect(order!.cancelledAt).to.not.equal('');
    expect(order!.details!.paymentLink).to.equal('');
    expect(await stockOf(stack.client(), STOCKED_SKU), 'the stock is back without a reconcile pass').to.equal(before);
    expect(await countRows(stack, 'promo_holds', { code: 'CANCELME' })).to.equal(0);
    expect(await providerStatusOf(created.id)).to.equal('EXPIRED');

    const again = await rpc.cancelOrder({ checkoutReference: body.checkout_reference }, { staff: OWNER });
    expect(again.order!.cancelledAt).to.equal(order!.cancelledAt);
    expect(await audit(body.checkout_reference, 'order_cancelled')).to.equal(1);
    await stack.checkout!.reconcileNow();
    expect(
      (await stack.checkout!.store.findByReference(body.checkout_reference))!.status,
      'the reconciler leaves it cancelled',
    ).to.equal('cancelled');
    expect(await stockOf(stack.client(), STOCKED_SKU)).to.equal(before);
  });

  it('cancels an order that never got a payment link; refuses while one is made or the provider is down', async () => {
    const before = await stockOf(stack.client(), STOCKED_SKU);
    const noLink = stockedBody();
    stack.paymentSandbox!.control.setBehaviour('fail');
    try {
      const res = await createCheckout(stack.client(), noLink);
      expect(res.status).to.equal(502);
      const down = stockedBody();
      stack.paymentSandbox!.control.setBehaviour('ok');
      await open(down);
      stack.paymentSandbox!.control.setBehaviour('fail');
      const refused = await refusal(rpc.cancelOrder({ checkoutReference: down.checkout_reference }, { staff: PACKER }));
      expect(refused.kind).to.equal('provider_unavailable');
      expect(
        (await stack.checkout!.store.findByReference(down.checkout_reference))!.status,
        'nothing changed',
      ).to.equal('pending_payment');
      expect(await audit(down.checkout_reference, 'order_cancelled')).to.equal(0);
    } finally {
      stack.paymentSandbox!.control.setBehaviour('ok');
    }
    const order = (await stack.checkout!.store.findByReference(noLink.checkout_reference))!;
    expect(order.providerCheckoutId).to.equal(undefined);
    await stack
      .checkout!.db('orders')
      .where({ id: order.id })
      .update({ claim_token: 'another-attempt', claim_expires_at: Date.now() + 60_000 });
    expect(
      await refusal(rpc.cancelOrder({ checkoutReference: noLink.checkout_reference }, { staff: PACKER })),
    ).to.include({ kind: 'conflict', code: 'request_in_progress' });
    await stack.checkout!.db('orders').where({ id: order.id }).update({ claim_token: null, claim_expires_at: null });
    expect(
      (await rpc.cancelOrder({ checkoutReference: noLink.checkout_reference }, { staff: PACKER })).order!.details!
        .summary!.status,
    ).to.equal('cancelled');
    // The order whose provider was down is still open and holds one unit; the cancelled one holds none.
    expect(await stockOf(stack.client(), STOCKED_SKU)).to.equal(before - 1);
  });

  it('refuses the cancel of an order paid before it, which becomes paid through the usual path', async () => {
    const body = stockedBody();
    const created = await open(body);
    await completePayment(created.hosted_checkout_url, 'pay');
    const refused = await refusal(rpc.cancelOrder({ checkoutReference: body.checkout_reference }, { staff: PACKER }));
    expect(refused).to.include({ kind: 'conflict', code: 'order_not_cancellable' });
    const order = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    expect(order.status).to.equal('paid');
    expect(order.cancelledAt).to.equal(undefined);
    expect(order.stockSettledAt, 'the stock is committed, not released').to.be.a('number');
    expect(await audit(body.checkout_reference, 'order_cancelled')).to.equal(0);
    expect(await mailsTitled(`Order ${order.number} is confirmed`)).to.have.length(1);
  });

  it('a payment racing a cancel: the order ends paid or cancelled, never both, and its stock follows', async () => {
    const before = await stockOf(stack.client(), STOCKED_SKU);
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round += 1) {
      const body = stockedBody();
      const created = await open(body);
      const [cancel] = await Promise.allSettled([
        rpc.cancelOrder({ checkoutReference: body.checkout_reference }, { staff: PACKER }),
        completePayment(created.hosted_checkout_url, 'pay').catch(() => undefined),
      ]);
      await stack.checkout!.reconcileNow();
      const order = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
      const providerStatus = await providerStatusOf(created.id);
      outcomes.push(order.status);
      if (order.status === 'cancelled') {
        expect(cancel.status).to.equal('fulfilled');
        expect(providerStatus, 'no payment taken for a cancelled order').to.not.equal('PAID');
      } else {
        expect(order.status).to.equal('paid');
        expect(providerStatus).to.equal('PAID');
        expect(cancel.status === 'rejected' && cancel.reason instanceof AppError && cancel.reason.code).to.equal(
          'order_not_cancellable',
        );
      }
    }
    const sold = outcomes.filter((status) => status === 'paid').length;
    expect(await stockOf(stack.client(), STOCKED_SKU)).to.equal(before - sold);
  });

  it('the ops commands dispatch, deliver and cancel as the operator, recorded in the audit log', async () => {
    const run = (args: string[]) =>
      runOpsJson<{ order: Record<string, unknown>; error?: string }>(
        checkoutOps,
        args,
        opsEnvFor(stack.stores, 'checkout', stack.env),
        'ops-alice',
      );
    const reference = await paid();
    const dispatched = await run(['orders', 'dispatch', reference, '--carrier', 'Evri', '--tracking', 'H01234567890']);
    expect(dispatched.code).to.equal(0);
    expect(dispatched.json.order).to.deep.include({ status: 'dispatched' });
    expect(dispatched.json.order.dispatch).to.include({
      carrier: 'Evri',
      trackingNumber: 'H01234567890',
      dispatchedBy: 'ops-alice',
    });
    // The command line cannot reach inventory: the running service's pass records the shipment and queues the notice.
    const notices = () => countRows(stack, 'mail_outbox', { mail_key: `dispatch:${reference}` });
    expect(await notices()).to.equal(0);
    expect((await stack.inventory!.reservations.allocations.ofOrder(reference)).shippedAt).to.equal(undefined);
    expect(await stack.checkout!.recordShipmentsNow()).to.equal(1);
    expect(await notices()).to.equal(1);
    expect((await stack.inventory!.reservations.allocations.ofOrder(reference)).shippedAt).to.be.a('number');
    expect(await stack.checkout!.recordShipmentsNow(), 'recorded once').to.equal(0);
    expect((await run(['orders', 'delivered', reference])).json.order).to.include({ status: 'delivered' });
    const [row] = await stack.checkout!.db('staff_actions').where({ subject: reference, action: 'order_dispatched' });
    expect(row).to.include({ staff_id: 'ops:ops-alice', role: 'owner', client_address: 'ops-cli' });

    const refused = await run(['orders', 'dispatch', reference, '--carrier', 'Evri', '--tracking', 'bad#']);
    expect(refused.code).to.not.equal(0);
    expect(refused.json).to.include({ success: false, error: 'invalid_tracking_number' });

    const unpaid = stockedBody();
    const before = await stockOf(stack.client(), STOCKED_SKU);
    await open(unpaid);
    const cancelled = await run(['orders', 'cancel', unpaid.checkout_reference]);
    expect(cancelled.json.order).to.include({ status: 'cancelled' });
    // The running service gives the stock back at its next pass: the order is due at once.
    await stack.checkout!.reconcileNow();
    expect(await stockOf(stack.client(), STOCKED_SKU)).to.equal(before);
  });
});
