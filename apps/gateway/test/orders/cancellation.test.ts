/**
 * The customer's cancellation on the order page (decision 1321): a paid order not yet dispatched offers "Cancel order
 * and refund me" with the cancellation rights; pressing it refunds the whole payment and the page says so; a
 * cross-site post cancels nothing; once dispatched the page offers the return rights instead.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { confirmOnOrderPage, countRows, sku, startCheckoutStack } from '../../../checkout/test/support';
import { OWNER, PAID_PENCE, paidOrder } from '../../../checkout/test/refund-support';
import { checkout } from '@storefront/proto';
import { postForm } from '../support/site-forms';

describe('gateway: the customer cancels on the order page', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
    // Enough units of the stock-limited SKU for every order here.
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
  });
  after(async () => stack?.stop());

  const orderRow = (reference: string) => stack.checkout!.db('orders').where({ reference }).first();

  it('offers the button with the rights, refunds everything when pressed, and says so on the page', async () => {
    const client = stack.client();
    const { reference, orderId } = await paidOrder(stack, client);
    await confirmOnOrderPage(client, reference);
    const page = await client.get(`/orders/${reference}`);
    expect(page.text).to.contain('Cancel order and refund me').and.contain('14 days');

    const crossSite = await client.request<string>('POST', `/orders/${reference}/cancel`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://elsewhere.example' },
      body: '',
    });
    expect(crossSite.status).to.equal(403);
    expect(await countRows(stack, 'refunds', { order_id: orderId }), 'a cross-site post cancels nothing').to.equal(0);

    const pressed = await postForm(client, `/orders/${reference}/cancel`, {});
    expect(pressed.status, pressed.text).to.equal(303);
    expect(pressed.headers.get('location')).to.equal(`/orders/${reference}`);
    expect(Number((await orderRow(reference)).refunded_pence)).to.equal(PAID_PENCE);
    const after = await client.get(`/orders/${reference}`);
    expect(after.text).to.contain('You cancelled this order').and.not.contain('Cancel order and refund me');
  });

  it('offers the return rights instead once the order is dispatched, and refuses to cancel it', async () => {
    const client = stack.client();
    const { reference, orderId } = await paidOrder(stack, client);
    await confirmOnOrderPage(client, reference);
    const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      await rpc.dispatchOrder(
        { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 3 GB' },
        { staff: OWNER },
      );
    } finally {
      rpc.close();
    }
    const page = await client.get(`/orders/${reference}`);
    expect(page.text).to.contain('Returns').and.not.contain('Cancel order and refund me');
    const refused = await postForm(client, `/orders/${reference}/cancel`, {});
    expect(refused.status).to.equal(409);
    expect(refused.text).to.contain('return it within 14 days');
    expect(await countRows(stack, 'refunds', { order_id: orderId })).to.equal(0);
  });
});
