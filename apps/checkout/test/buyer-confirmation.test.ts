/**
 * The buyer statements, checkout's part (decisions 1220–1222): an order placed without them is held and cannot be
 * dispatched until the person confirms; confirming records the wording's version and the time; a paid order left
 * unconfirmed for 7 days is cancelled and refunded in full by a pass that replicas may run at once.
 */
import { expect } from 'chai';
import { BUYER_CONFIRMATION_VERSION, BUYER_CONFIRMATION_WINDOW_MS } from '@storefront/formats';
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

const MINUTE_MS = 60_000;

describe('checkout: the buyer confirms the research-use and age statements', () => {
  let clock = Date.now();
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  before(async () => {
    stack = await startCheckoutStack({}, undefined, { now: () => clock });
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
  // Orders are placed and paid on the real clock; only the passes run later.
  beforeEach(() => {
    clock = Date.now();
  });

  const dispatch = (reference: string) =>
    rpc.dispatchOrder(
      { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 1 GB' },
      { staff: OWNER },
    );
  const orderRow = (reference: string) => stack.checkout!.db('orders').where({ reference }).first();
  const heldReferences = async () =>
    (
      await rpc.listOrdersForStaff(
        {
          query: '',
          status: '',
          createdFrom: '',
          createdUntil: '',
          limit: 50,
          cursor: '',
          accountId: '',
          awaitingBuyerConfirmation: true,
        },
        { staff: OWNER },
      )
    ).orders.map((order) => order.details!.summary!.reference);

  it('holds an order placed through the API: no dispatch until the person confirms on the order page', async () => {
    const { reference } = await paidOrder(stack);
    const held = (await rpc.getOrderForStaff({ checkoutReference: reference }, { staff: OWNER })).order!;
    expect(held.details!.summary).to.include({ buyerConfirmedAt: '', buyerConfirmationVersion: '' });
    expect(await heldReferences()).to.include(reference);

    const refused = await refusal(dispatch(reference));
    expect(refused).to.include({ kind: 'conflict', code: 'buyer_not_confirmed' });
    expect(refused.detail).to.contain(reference).and.contain('confirmed');
    expect((await orderRow(reference)).status).to.equal('paid');

    clock += MINUTE_MS;
    await confirmOnOrderPage(stack.client(), reference);
    const row = await orderRow(reference);
    expect(row.buyer_confirmation_version).to.equal(BUYER_CONFIRMATION_VERSION);
    expect(Number(row.buyer_confirmed_at), 'when the person confirmed').to.equal(clock);
    expect(await heldReferences()).not.to.include(reference);
    expect((await dispatch(reference)).order!.details!.summary!.status).to.equal('dispatched');
  });

  it('records a confirmation sent with the order, and refuses any wording version but the current one', async () => {
    const body = checkoutBody(PAID_PENCE / 100, PAID_LINES);
    const request = {
      checkoutReference: body.checkout_reference,
      amountPence: PAID_PENCE,
      currency: 'GBP',
      merchantCode: body.merchant_code,
      items: PAID_LINES,
      delivery: body.delivery,
      clientAddress: '198.51.100.7',
    };
    const stale = await refusal(rpc.createCheckout({ ...request, buyerConfirmationVersion: 'buyer-confirmation-v0' }));
    expect(stale).to.include({ kind: 'invalid_argument', code: 'invalid_buyer_confirmation' });
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference }), 'a 400 saves nothing').to.equal(0);

    const { order } = await rpc.createCheckout({ ...request, buyerConfirmationVersion: BUYER_CONFIRMATION_VERSION });
    expect(order!.buyerConfirmationVersion).to.equal(BUYER_CONFIRMATION_VERSION);
    expect(order!.buyerConfirmedAt, 'when the order was placed').to.equal(new Date(clock).toISOString());
  });

  it("lets only whoever may read the order confirm it: an account's order is not found for anyone else", async () => {
    const owner = stack.client();
    await signUp(owner);
    const created = await expectCheckout(owner, checkoutBody(PAID_PENCE / 100, PAID_LINES));
    const confirm = (customer?: string) =>
      rpc.confirmBuyer(
        {
          checkoutReference: created.checkout_reference,
          buyerConfirmationVersion: BUYER_CONFIRMATION_VERSION,
          clientAddress: '198.51.100.8',
        },
        { customer },
      );
    expect(await refusal(confirm())).to.include({ kind: 'not_found', code: 'order_not_found' });
    expect(await refusal(confirm('someone-else'))).to.include({ kind: 'not_found' });
    expect((await orderRow(created.checkout_reference)).buyer_confirmed_at).to.equal(null);
    await confirmOnOrderPage(owner, created.checkout_reference);
    const again = await confirmOnOrderPage(owner, created.checkout_reference).then(() =>
      orderRow(created.checkout_reference),
    );
    expect(again.buyer_confirmation_version, 'confirming twice answers the order again').to.equal(
      BUYER_CONFIRMATION_VERSION,
    );
  });

  it('cancels a paid order unconfirmed for 7 days: full refund, stock back; confirming is then refused', async () => {
    const client = stack.client();
    const { reference } = await paidOrder(stack, client);
    const stockAfterPaying = await stockOf(client, sku('low'));

    clock = Date.now() + BUYER_CONFIRMATION_WINDOW_MS - MINUTE_MS;
    await stack.checkout!.lapseUnconfirmedNow();
    expect((await orderRow(reference)).status, 'not before the 7 days').to.equal('paid');

    clock = Date.now() + BUYER_CONFIRMATION_WINDOW_MS + MINUTE_MS;
    await stack.checkout!.lapseUnconfirmedNow();
    const row = await orderRow(reference);
    expect(row).to.include({ status: 'refunded', close_reason: 'buyer_never_confirmed' });
    expect(Number(row.refunded_pence)).to.equal(PAID_PENCE);
    const [refund] = await stack.checkout!.db('refunds').where({ order_id: row.id });
    expect(refund).to.include({ state: 'succeeded', idempotency_key: `buyer-not-confirmed:${row.id}` });
    await stack.checkout!.sweepRefundsNow();
    expect(await stockOf(client, sku('low')), 'the two units go back to stock').to.equal(stockAfterPaying + 2);

    const closed = await client.request<string>('POST', `/orders/${reference}/confirm`, {
      body: 'research_use_only=yes&adult=yes',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:9' },
    });
    expect(closed.status).to.equal(409);
    expect((await orderRow(reference)).buyer_confirmed_at).to.equal(null);
    await stack.checkout!.lapseUnconfirmedNow();
    expect(await countRows(stack, 'refunds', { order_id: row.id }), 'a later pass refunds nothing more').to.equal(1);
  });

  it('cancels each order once when replicas pass at once, and leaves confirmed orders alone', async () => {
    const [lapsing, confirmed] = [await paidOrder(stack), await paidOrder(stack)];
    await confirmOnOrderPage(stack.client(), confirmed.reference);
    clock = Date.now() + BUYER_CONFIRMATION_WINDOW_MS + MINUTE_MS;
    await Promise.all([
      stack.checkout!.lapseUnconfirmedNow(),
      stack.checkout!.lapseUnconfirmedNow(),
      stack.checkout!.lapseUnconfirmedNow(),
    ]);
    expect(await countRows(stack, 'refunds', { order_id: lapsing.orderId })).to.equal(1);
    expect(Number((await orderRow(lapsing.reference)).refunded_pence)).to.equal(PAID_PENCE);
    expect(await countRows(stack, 'refunds', { order_id: confirmed.orderId })).to.equal(0);
    expect((await orderRow(confirmed.reference)).status).to.equal('paid');
  });

  it('finishes the refund of an order a pass marked cancelled but stopped before refunding', async () => {
    const { reference, orderId } = await paidOrder(stack);
    // What a pass cut short after its mark leaves behind.
    await stack
      .checkout!.db('orders')
      .where({ id: orderId })
      .update({ buyer_lapsed_at: Date.now(), close_reason: 'buyer_never_confirmed' });
    clock = Date.now() + BUYER_CONFIRMATION_WINDOW_MS + MINUTE_MS;
    await stack.checkout!.lapseUnconfirmedNow();
    expect((await orderRow(reference)).status).to.equal('refunded');
    expect(await countRows(stack, 'refunds', { order_id: orderId })).to.equal(1);
  });
});
