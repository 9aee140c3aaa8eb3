/**
 * Returns after delivery (decision 1325), with a controlled clock: the order page of a delivered order offers a return
 * of the units not yet refunded or returned; the console lists it; the owner's "Goods received" refunds the goods'
 * share once however often it is pressed (with the delivery when the whole order is back), with one refund mail each;
 * a refusal keeps its reason and refunds nothing; a staff member cannot decide; the window closes 14 days after
 * delivery.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { checkout } from '@storefront/proto';
import { confirmOnOrderPage, countRows, signUp, sku, startCheckoutStack } from '../../../checkout/test/support';
import { OWNER, PAID_PENCE, paidOrder } from '../../../checkout/test/refund-support';
import { postForm } from '../support/site-forms';
import { postConsoleForm, signedInStaff } from '../support/console';

const DAY = 24 * 3600 * 1000;
const LOW = sku('low');
const P1005 = sku('p1005');

/** A stack whose stock-limited size has units for every order here. */
async function returnsStack(options: Parameters<typeof startCheckoutStack>[2] = {}): Promise<Stack> {
  const stack = await startCheckoutStack({}, undefined, options);
  await stack.inventory!.db('stock').where({ sku: LOW }).update({ on_hand: 1000 });
  return stack;
}

/** A paid, confirmed order of £39.00 (2 × £12.00, 1 × £10.05, £4.95 delivery) of a signed-up customer, delivered. */
async function deliveredOrder(stack: Stack) {
  const client = stack.client();
  await signUp(client);
  const { reference, orderId } = await paidOrder(stack, client);
  await confirmOnOrderPage(client, reference);
  const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  try {
    await rpc.dispatchOrder(
      { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 4 GB' },
      { staff: OWNER },
    );
    await rpc.markOrderDelivered({ checkoutReference: reference }, { staff: OWNER });
  } finally {
    rpc.close();
  }
  return { client, reference, orderId };
}

describe('gateway: returns after delivery', () => {
  let stack: Stack;
  let ownerClient: ReturnType<Stack['client']>;
  let staffClient: ReturnType<Stack['client']>;
  before(async () => {
    stack = await returnsStack();
    ownerClient = stack.client();
    await signedInStaff(stack, ownerClient, 'returns-owner@shop.test', 'owner');
    staffClient = stack.client();
    await signedInStaff(stack, staffClient, 'returns-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  const refundedPence = async (reference: string) =>
    Number((await stack.checkout!.db('orders').where({ reference }).first('refunded_pence')).refunded_pence);
  const returnsOf = (orderId: string) =>
    stack.checkout!.db('returns').where({ order_id: orderId }).orderBy('requested_at');

  it('refuses a return before dispatch, and offers one with the returnable units once delivered', async () => {
    const client = stack.client();
    const { reference } = await paidOrder(stack, client);
    await confirmOnOrderPage(client, reference);
    expect((await client.get<string>(`/orders/${reference}`)).text).not.to.contain('Start a return');
    const early = await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '1' });
    expect(early.status).to.equal(409);
    expect(early.text).to.contain('has not been dispatched');

    const delivered = await deliveredOrder(stack);
    const page = (await delivered.client.get<string>(`/orders/${delivered.reference}`)).text;
    expect(page).to.contain('Start a return');
    expect(page).to.contain(`name="qty_${LOW}" min="0" max="2"`).and.contain(`name="qty_${P1005}" min="0" max="1"`);
  });

  it('records a return, refuses more units than are left or none at all, and lists it in the console', async () => {
    const { client, reference, orderId } = await deliveredOrder(stack);
    const none = await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '0' });
    expect(none.status).to.equal(400);
    expect(none.text).to.contain('at least one item');
    const started = await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '1' });
    expect(started.status, started.text).to.equal(303);
    const page = (await client.get<string>(`/orders/${reference}`)).text;
    expect(page).to.contain('waiting for the goods to arrive').and.contain(`name="qty_${LOW}" min="0" max="1"`);
    const tooMany = await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '2' });
    expect(tooMany.status).to.equal(409);
    expect(tooMany.text).to.contain('already refunded or in a return');
    expect(await returnsOf(orderId)).to.have.length(1);
    // Someone else's browser cannot start a return of it.
    const stranger = await postForm(stack.client(), `/orders/${reference}/return`, { [`qty_${LOW}`]: '1' });
    expect(stranger.status).to.equal(404);

    const listed = await ownerClient.get<string>('/console/returns?state=requested');
    expect(listed.status).to.equal(200);
    expect(listed.text).to.contain(`1 × ${LOW}`).and.contain('Goods received: refund');
    // When it was started, in UK time with its zone, as every console time.
    expect(listed.text).to.match(/<td>\d{4}-\d\d-\d\d \d\d:\d\d (BST|GMT)<\/td>/);
  });

  it('refunds the goods once when received, pressed twice, delivery too with the last units; a mail each', async () => {
    const { client, reference, orderId } = await deliveredOrder(stack);
    await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '1' });
    const [first] = await returnsOf(orderId);
    // A staff member sees the list but cannot decide.
    expect((await postConsoleForm(stack, staffClient, `/console/returns/${first.id}/receive`, {})).status).to.equal(
      403,
    );
    const pressed = await Promise.all(
      [0, 1].map(() => postConsoleForm(stack, ownerClient, `/console/returns/${first.id}/receive`, {})),
    );
    for (const answer of pressed) expect(answer.status, answer.text).to.equal(303);
    expect(await refundedPence(reference)).to.equal(1200);
    const [received] = await returnsOf(orderId);
    expect(received).to.include({ state: 'refunded', decided_by: 'returns-owner@shop.test' });
    expect(await countRows(stack, 'mail_outbox', { mail_key: `refund:${received.refund_id}` })).to.equal(1);

    // The rest of the order: the goods and the delivery, so everything paid is back.
    await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '1', [`qty_${P1005}`]: '1' });
    const second = (await returnsOf(orderId))[1];
    await postConsoleForm(stack, ownerClient, `/console/returns/${second.id}/receive`, {});
    expect(await refundedPence(reference)).to.equal(PAID_PENCE);
    const stock = await stack.inventory!.db('stock').where({ sku: P1005 }).first();
    expect(stock, 'the unlimited size has no stock row to return to').to.equal(undefined);
    expect((await client.get<string>(`/orders/${reference}`)).text)
      .to.contain('received and refunded')
      .and.not.contain('Start a return');
  });

  it('refuses a return with a reason the customer sees, refunding nothing; a decided return stays so', async () => {
    const { client, reference, orderId } = await deliveredOrder(stack);
    await postForm(client, `/orders/${reference}/return`, { [`qty_${P1005}`]: '1' });
    const [found] = await returnsOf(orderId);
    const noReason = await postConsoleForm(stack, ownerClient, `/console/returns/${found.id}/refuse`, { reason: ' ' });
    expect(noReason.status).to.equal(400);
    const refused = await postConsoleForm(stack, ownerClient, `/console/returns/${found.id}/refuse`, {
      reason: 'The vial was opened',
    });
    expect(refused.status).to.equal(303);
    expect(await refundedPence(reference)).to.equal(0);
    expect((await client.get<string>(`/orders/${reference}`)).text).to.contain('refused: The vial was opened');
    const again = await postConsoleForm(stack, ownerClient, `/console/returns/${found.id}/receive`, {});
    expect(again.status).to.equal(409);
    expect(again.text).to.contain('was already refused');
    expect(await refundedPence(reference)).to.equal(0);
  });
});

describe('gateway: the return window, on a controlled clock', () => {
  let stack: Stack;
  // The payment sandbox runs on real time: the shop's clock starts there and the test moves it on.
  let nowMs = Date.now();
  before(async () => {
    nowMs = Date.now();
    stack = await returnsStack({ now: () => nowMs });
  });
  after(async () => stack?.stop());

  it('closes 14 days after delivery', async () => {
    const { client, reference } = await deliveredOrder(stack);
    nowMs += 14 * DAY - 60_000;
    expect((await client.get<string>(`/orders/${reference}`)).text).to.contain('Start a return');
    nowMs += 120_000;
    const page = (await client.get<string>(`/orders/${reference}`)).text;
    expect(page).not.to.contain('Start a return');
    const late = await postForm(client, `/orders/${reference}/return`, { [`qty_${LOW}`]: '1' });
    expect(late.status).to.equal(409);
    expect(late.text).to.contain('days to start a return');
  });
});
