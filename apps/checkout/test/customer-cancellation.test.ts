/**
 * The customer's cancellation before dispatch, checkout's part (decision 1321): whoever may read the order cancels a
 * paid order that has not left; the whole payment, delivery included, is refunded once and the units go back to
 * stock; a cancelled order cannot be dispatched, and a cancellation crossing a dispatch loses or wins whole.
 */
import { expect } from 'chai';
import type { RpcClient } from '@storefront/grpc';
import { checkout } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  confirmOnOrderPage,
  countRows,
  expectCheckout,
  refusal,
  signUp,
  sku,
  startCheckoutStack,
  stockOf,
} from './support';
import { OWNER, PAID_LINES, PAID_PENCE, paidOrder } from './refund-support';

describe('checkout: the customer cancels before dispatch', () => {
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  before(async () => {
    stack = await startCheckoutStack();
    rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  });
  // Enough units of the stock-limited SKU for every order here.
  before(() =>
    stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 }),
  );
  after(async () => {
    rpc?.close();
    await stack?.stop();
  });

  const cancel = (reference: string, customer?: string) =>
    rpc.cancelOrderAsCustomer({ checkoutReference: reference, clientAddress: '198.51.100.9' }, { customer });
  const dispatch = (reference: string) =>
    rpc.dispatchOrder(
      { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 2 GB' },
      { staff: OWNER },
    );
  const orderRow = (reference: string) => stack.checkout!.db('orders').where({ reference }).first();

  /** A paid order whose buyer confirmed, so nothing but the cancellation keeps it from leaving. */
  async function confirmedPaidOrder(client = stack.client()) {
    const order = await paidOrder(stack, client);
    await confirmOnOrderPage(client, order.reference);
    return order;
  }

  it('refunds the whole payment, delivery included, returns the units, and then refuses to dispatch it', async () => {
    const client = stack.client();
    await signUp(client);
    const { reference, orderId } = await confirmedPaidOrder(client);
    const stockAfterPaying = await stockOf(client, sku('low'));
    const placed = await orderRow(reference);
    expect(Number(placed.shipping_pence), 'an order below the free-shipping threshold').to.be.above(0);

    expect(await refusal(cancel(reference)), 'an account order, not for a guest').to.include({ kind: 'not_found' });
    expect(await refusal(cancel(reference, 'someone-else'))).to.include({ kind: 'not_found' });
    expect(await countRows(stack, 'refunds', { order_id: orderId })).to.equal(0);

    const { order } = await cancel(reference, String(placed.account_id));
    expect(order!.summary!.status).to.equal('refunded');
    expect(order!.summary!.closeReason).to.equal('cancelled_by_customer');
    const row = await orderRow(reference);
    expect(Number(row.refunded_pence), 'goods and delivery').to.equal(PAID_PENCE);
    const [refund] = await stack.checkout!.db('refunds').where({ order_id: orderId });
    expect(refund).to.include({ state: 'succeeded', idempotency_key: `customer-cancelled:${orderId}` });
    await stack.checkout!.sweepRefundsNow();
    expect(await stockOf(client, sku('low')), 'the two units go back to stock').to.equal(stockAfterPaying + 2);

    const again = await cancel(reference, String(placed.account_id));
    expect(again.order!.summary!.status, 'cancelling again answers the order').to.equal('refunded');
    expect(await countRows(stack, 'refunds', { order_id: orderId }), 'and refunds nothing more').to.equal(1);
    expect(await refusal(dispatch(reference))).to.include({ kind: 'conflict', code: 'order_cancelled' });
    expect((await orderRow(reference)).dispatched_at).to.equal(null);
  });

  it('lets whoever holds a guest order’s reference cancel it, and refuses a dispatched or unpaid order', async () => {
    const guest = await confirmedPaidOrder();
    expect((await cancel(guest.reference)).order!.summary!.status).to.equal('refunded');

    const sent = await confirmedPaidOrder();
    await dispatch(sent.reference);
    const refused = await refusal(cancel(sent.reference));
    expect(refused).to.include({ kind: 'conflict', code: 'order_already_dispatched' });
    expect(refused.detail).to.contain('return it within 14 days');
    expect(await countRows(stack, 'refunds', { order_id: sent.orderId })).to.equal(0);

    const unpaid = await expectCheckout(stack.client(), checkoutBody(PAID_PENCE / 100, PAID_LINES));
    expect(await refusal(cancel(unpaid.checkout_reference))).to.include({ kind: 'conflict', code: 'order_not_paid' });
    expect((await orderRow(unpaid.checkout_reference)).customer_cancelled_at).to.equal(null);
  });

  it('lets exactly one of a cancellation and a dispatch crossing each other happen, on every try', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const { reference, orderId } = await confirmedPaidOrder();
      const [cancelled, dispatched] = await Promise.allSettled([cancel(reference), dispatch(reference)]);
      const row = await orderRow(reference);
      const refunds = await countRows(stack, 'refunds', { order_id: orderId });
      expect(
        [cancelled.status, dispatched.status].filter((status) => status === 'fulfilled'),
        `try ${attempt}: one wins`,
      ).to.have.length(1);
      if (cancelled.status === 'fulfilled') {
        expect(row.dispatched_at, `try ${attempt}`).to.equal(null);
        expect(refunds, `try ${attempt}`).to.equal(1);
      } else {
        expect(row.customer_cancelled_at, `try ${attempt}`).to.equal(null);
        expect(refunds, `try ${attempt}`).to.equal(0);
      }
    }
  });
});
