/**
 * Checkout's dispatch queue (decision 1330): paid orders confirmed by their buyer and not yet dispatched, oldest
 * payment first (an order paid before payment times were kept first of all), page after page by cursor without
 * repeating or skipping one; a malformed cursor or page size is refused.
 */
import { expect } from 'chai';
import type { RpcClient } from '@storefront/grpc';
import { checkout } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import { confirmOnOrderPage, refusal, sku, startCheckoutStack } from './support';
import { OWNER, paidOrder } from './refund-support';

describe('checkout: the dispatch queue', () => {
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  before(async () => {
    stack = await startCheckoutStack();
    rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
  });
  after(async () => {
    rpc?.close();
    await stack?.stop();
  });

  const confirmedOrder = async () => {
    const { reference } = await paidOrder(stack);
    await confirmOnOrderPage(stack.client(), reference);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return reference;
  };

  it('pages through the queue oldest payment first, an order without a payment time first, each once', async () => {
    const references = [await confirmedOrder(), await confirmedOrder(), await confirmedOrder()];
    const legacy = await confirmedOrder();
    await stack.checkout!.db('orders').where({ reference: legacy }).update({ paid_at: null });
    const held = (await paidOrder(stack)).reference;
    const dispatched = await confirmedOrder();
    await rpc.dispatchOrder(
      { checkoutReference: dispatched, carrier: 'Royal Mail', trackingNumber: 'RM 1' },
      { staff: OWNER },
    );

    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await rpc.listDispatchQueue({ limit: 2, cursor }, { staff: OWNER });
      expect(page.orders.length).to.be.at.most(2);
      seen.push(...page.orders.map((order) => order.details!.summary!.reference));
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(seen).to.deep.equal([legacy, ...references]);
    expect(seen).to.not.include(held).and.not.include(dispatched);

    const whole = await rpc.listDispatchQueue({ limit: 0, cursor: '' }, { staff: OWNER });
    expect(whole.nextCursor).to.equal('');
    expect(whole.orders[1]!.paidAt).to.be.a('string').and.not.equal('');
  });

  it('refuses a cursor it did not issue and a page size out of range', async () => {
    for (const request of [
      { limit: 0, cursor: 'not-a-cursor' },
      { limit: 0, cursor: Buffer.from(JSON.stringify(['x', 'id'])).toString('base64url') },
      { limit: 51, cursor: '' },
      { limit: -1, cursor: '' },
    ]) {
      const error = await refusal(rpc.listDispatchQueue(request, { staff: OWNER }));
      expect(error.kind, JSON.stringify(request)).to.equal('invalid_argument');
    }
  });
});
