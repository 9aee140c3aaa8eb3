/**
 * The console's order page, the details staff read it by: the customer by name linked to their page (the e-mail for a
 * guest), refunds and the refunded amount still shown once the order is dispatched, a refund form offering only the
 * units not yet returned (checkout refusing more), and every time in UK time with BST or GMT named.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { DELIVERY, confirmOnOrderPage, signUp, sku, startCheckoutStack } from '../../../../checkout/test/support';
import { paidOrder } from '../../../../checkout/test/refund-support';
import { postConsoleForm, signedInStaff } from '../../support/console';

describe('the console order page: customer, refunds after dispatch, units left to return, UK time', () => {
  let stack: Stack;
  let owner: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ OPEN_ORDERS_SKU_SHARE_PERCENT: '100', OPEN_ORDERS_PER_ADDRESS_MAX: '100' });
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
    owner = stack.client();
    await signedInStaff(stack, owner, 'details-owner@shop.test', 'owner');
  });
  after(async () => stack?.stop());

  const orderPage = async (reference: string) => {
    const page = await owner.get<string>(`/console/orders/${encodeURIComponent(reference)}`);
    expect(page.status, page.text).to.equal(200);
    return page.text;
  };
  const refundForm = (reference: string, fields: Record<string, string>) =>
    postConsoleForm(stack, owner, `/console/orders/${encodeURIComponent(reference)}/refund`, {
      reason: 'One vial arrived broken',
      ...fields,
    });

  it("names an account's customer and links to their page; a guest is named by the order's e-mail", async () => {
    const customer = stack.client();
    const accountId = await signUp(customer);
    const { reference } = await paidOrder(stack, customer);
    expect(await orderPage(reference)).to.contain(
      `<dt>Customer</dt><dd><a href="/console/customers/${accountId}">Grace Hopper</a></dd>`,
    );

    const { reference: guest } = await paidOrder(stack);
    expect(await orderPage(guest)).to.contain(`<dt>Customer</dt><dd>${DELIVERY.email} (guest)</dd>`);
  });

  it('keeps refunds and the refunded amount on the page after dispatch; offers only units left to return', async () => {
    const buyer = stack.client();
    const { reference } = await paidOrder(stack, buyer);
    await confirmOnOrderPage(buyer, reference);
    const first = await refundForm(reference, { amount: '12.00', [`restock_${sku('low')}`]: '1', key: 'first-key' });
    expect(first.status, first.text).to.equal(201);
    const dispatched = await postConsoleForm(stack, owner, `/console/orders/${reference}/dispatch`, {
      carrier: 'Royal Mail',
      trackingNumber: 'RM 1',
    });
    expect(dispatched.status, dispatched.text).to.equal(303);

    const page = await orderPage(reference);
    expect(page).to.contain('<dt>Status</dt><dd>Dispatched</dd>');
    expect(page).to.contain('<dt>Refunded</dt><dd>£12.00</dd>');
    expect(page)
      .to.contain('One vial arrived broken')
      .and.contain(`1 × ${sku('low')}`);
    // Two were ordered and one returned: the form offers the one left, and the other line's one.
    expect(page).to.contain(`${sku('low')} (1 of 2 left to return)`);
    expect(page).to.match(new RegExp(`name="restock_${sku('low')}" min="0" max="1"`));
    expect(page).to.contain(`${sku('p1005')} (1 of 1 left to return)`);

    // Asking for both units again is refused by checkout, naming what is left; nothing is refunded.
    const tooMany = await refundForm(reference, { amount: '1.00', [`restock_${sku('low')}`]: '2', key: 'second-key' });
    expect(tooMany.status, tooMany.text).to.equal(400);
    expect(tooMany.text).to.contain('role="alert"').and.contain(`more than the 1 of it left to return`);
    expect(await stack.checkout!.db('refunds').where({ order_reference: reference }).count({ n: '*' })).to.deep.equal([
      { n: 1 },
    ]);

    // The last unit returned, the line is no longer offered.
    const rest = await refundForm(reference, { amount: '1.00', [`restock_${sku('low')}`]: '1', key: 'third-key' });
    expect(rest.status, rest.text).to.equal(201);
    const after = await orderPage(reference);
    expect(after).not.to.contain(`name="restock_${sku('low')}"`);
    expect(after).to.contain('<dt>Refunded</dt><dd>£13.00</dd>');
  });

  it('shows the times of an order in UK time: BST in summer, GMT in winter', async () => {
    const { reference } = await paidOrder(stack);
    await stack
      .checkout!.db('orders')
      .where({ reference })
      .update({ created_at: Date.parse('2026-07-01T12:30:00Z'), paid_at: Date.parse('2026-01-15T09:05:00Z') });
    const page = await orderPage(reference);
    expect(page).to.contain('<dt>Placed</dt><dd>2026-07-01 13:30 BST</dd>');
    expect(page).to.contain('<dt>Paid</dt><dd>2026-01-15 09:05 GMT</dd>');
    const list = await owner.get<string>(`/console/orders?q=${reference}`);
    expect(list.text).to.contain('Placed (UK time)').and.contain('<td>2026-07-01 13:30 BST</td>');
  });
});
