/**
 * Refunds over HTTP: the admin API (owner only, documented statuses and Error bodies, refunds in
 * the staff order and the new status on the public order), concurrent refunds on busy cores,
 * and the console's double-confirmed Refund form.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { expectNoServerErrors, withBusyCores, type HttpClient, type TestResponse } from '@storefront/testing';
import { countRows, signUp, sku, startCheckoutStack } from '../../../../checkout/test/support';
import { PAID_PENCE, paidOrder } from '../../../../checkout/test/refund-support';
import { postConsoleForm, signedInStaff } from '../../support/console';

interface RefundAnswer {
  refund: {
    id: string;
    amount: number;
    state: string;
    lines: Array<{ sku: string; quantity: number }>;
    createdBy: string;
  };
  order: { order: { status: string; refunded?: number }; refunds?: Array<{ id: string; state: string }> };
  error?: string;
  detail?: string;
}

const key = () => `api-${randomBytes(6).toString('hex')}`;

describe('refunds over HTTP: the admin API and the console', () => {
  let stack: Stack;
  let owner: HttpClient;
  let staff: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ OPEN_ORDERS_SKU_SHARE_PERCENT: '100' });
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
    owner = stack.client();
    await signedInStaff(stack, owner, 'refund-owner@shop.test', 'owner');
    staff = stack.client();
    await signedInStaff(stack, staff, 'refund-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  const refund = (client: HttpClient, reference: string, body: Record<string, unknown>) =>
    client.post<RefundAnswer>(`/api/admin/orders/${encodeURIComponent(reference)}/refunds`, body);
  const providerCalls = async (reference: string) => {
    const rows = await stack
      .checkout!.db('refunds')
      .where({ order_reference: reference })
      .whereNotNull('provider_transaction_id')
      .first('provider_transaction_id');
    return rows ? stack.paymentSandbox!.control.refundRequests(String(rows.provider_transaction_id)) : 0;
  };

  it('refunds for the owner (201), lists it in the staff order, shows the new status to the customer', async () => {
    const { reference } = await paidOrder(stack);
    const res = await refund(owner, reference, {
      amount: 12.5,
      reason: 'One vial arrived broken',
      lines: [{ sku: sku('low'), quantity: 1 }],
      idempotencyKey: key(),
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    expect(res.body.refund).to.deep.include({ amount: 12.5, state: 'succeeded', createdBy: 'refund-owner@shop.test' });
    expect(res.body.order.order).to.deep.include({ status: 'partially_refunded', refunded: 12.5 });

    const detail = await owner.get<RefundAnswer['order']>(`/api/admin/orders/${encodeURIComponent(reference)}`);
    expect(detail.body.refunds!.map((listed) => [listed.id, listed.state])).to.deep.equal([
      [res.body.refund.id, 'succeeded'],
    ]);
    const publicView = await stack
      .client()
      .get<{ status: string; refunded: number }>(`/api/orders/${encodeURIComponent(reference)}`);
    expect(publicView.status, publicView.text).to.equal(200);
    expect(publicView.body).to.deep.include({ status: 'partially_refunded', refunded: 12.5 });
  });

  it("refuses staff (403), no or a customer's session (401), bad bodies (400), each an Error naming why", async () => {
    const { reference } = await paidOrder(stack);
    const body = { amount: 1, reason: 'Goodwill', idempotencyKey: key() };
    const byStaff = await refund(staff, reference, body);
    expect(byStaff.status).to.equal(403);
    expect(byStaff.body).to.deep.include({ success: false, error: 'staff_role_refused' });
    const signedOut = await refund(stack.client(), reference, body);
    expect(signedOut.status).to.equal(401);
    expect(signedOut.body).to.deep.include({ success: false, error: 'staff_unauthorized' });
    const customer = stack.client();
    await signUp(customer);
    const byCustomer = await refund(customer, reference, body);
    expect(byCustomer.status).to.equal(401);
    expect(byCustomer.body).to.deep.include({ success: false, error: 'staff_unauthorized' });

    const noReason = await refund(owner, reference, { amount: 1, idempotencyKey: key() });
    expect(noReason.status).to.equal(400);
    expect(noReason.body.detail).to.contain('reason');
    const fraction = await refund(owner, reference, { ...body, amount: 1.005 });
    expect(fraction.status).to.equal(400);
    expect(fraction.body).to.deep.include({ error: 'invalid_amount' });
    const tooMuch = await refund(owner, reference, { ...body, amount: PAID_PENCE / 100 + 0.01 });
    expect(tooMuch.status).to.equal(422);
    expect(tooMuch.body).to.deep.include({ success: false, error: 'refund_exceeds_paid' });
    const unknown = await refund(owner, 'no-such-order', body);
    expect(unknown.status).to.equal(404);
    expect(await countRows(stack, 'refunds', { order_reference: reference })).to.equal(0);
  });

  it('answers the provider refusal as 422 with its code, and the same key again the same way', async () => {
    const { reference } = await paidOrder(stack);
    const body = { amount: 2, reason: 'Late delivery', idempotencyKey: key() };
    stack.paymentSandbox!.control.setBehaviour('refuse_refund');
    try {
      const refused = await refund(owner, reference, body);
      expect(refused.status).to.equal(422);
      expect(refused.body).to.deep.include({ success: false, error: 'refund_refused' });
      expect(refused.body.detail).to.contain('REFUND_NOT_ALLOWED');
    } finally {
      stack.paymentSandbox!.control.setBehaviour('ok');
    }
    expect((await refund(owner, reference, body)).status).to.equal(422);
    expect(await providerCalls(reference)).to.equal(1);
  });

  it('the same key sent many times at once makes one refund and one provider call', async () => {
    const { reference } = await paidOrder(stack);
    const body = { amount: 3, reason: 'Double click', idempotencyKey: key() };
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 8 }, () => refund(owner, reference, body))),
    );
    expectNoServerErrors(answers);
    for (const res of answers) expect(res.status, res.text).to.be.oneOf([201, 202]);
    expect(new Set(answers.map((res) => res.body.refund.id)).size).to.equal(1);
    expect(await countRows(stack, 'refunds', { order_reference: reference })).to.equal(1);
    expect(await providerCalls(reference)).to.equal(1);
  });

  it('refunds with different keys at once never pass what was paid, each sent once', async () => {
    const { reference } = await paidOrder(stack);
    // Five of a third each: at most three can ever fit.
    const third = Math.floor(PAID_PENCE / 3) / 100;
    const answers: Array<TestResponse<RefundAnswer>> = [];
    for (let round = 0; round < 3; round += 1) {
      answers.push(
        ...(await withBusyCores(() =>
          Promise.all(
            Array.from({ length: 5 }, () =>
              refund(owner, reference, { amount: third, reason: 'Split', idempotencyKey: key() }),
            ),
          ),
        )),
      );
    }
    expectNoServerErrors(answers);
    for (const res of answers) expect(res.status, res.text).to.be.oneOf([201, 409, 422]);
    const made = answers.filter((res) => res.status === 201);
    expect(made.length).to.be.within(1, 3);
    const rows = await stack.checkout!.db('refunds').where({ order_reference: reference, state: 'succeeded' });
    expect(rows).to.have.length(made.length);
    const order = await stack.checkout!.db('orders').where({ reference }).first('refunded_pence', 'total_pence');
    expect(Number(order.refunded_pence))
      .to.equal(made.length * Math.round(third * 100))
      .and.to.be.at.most(Number(order.total_pence));
    expect(await providerCalls(reference)).to.equal(made.length);
  });

  it('the console refunds only after a confirmation restating it; confirming again does nothing new', async () => {
    const { reference } = await paidOrder(stack);
    const detailPath = `/console/orders/${encodeURIComponent(reference)}`;
    const detail = await owner.get<string>(detailPath);
    expect(detail.status).to.equal(200);
    expect(detail.text).to.include('<h2>Refunds</h2>').and.include('Review refund');
    expect((await staff.get<string>(detailPath)).text)
      .to.include('<h2>Refunds</h2>')
      .and.not.include('Review refund');

    const form = { amount: '5.00', reason: 'Wrong size sent', [`restock_${sku('low')}`]: '1' };
    const review = await postConsoleForm(stack, owner, `${detailPath}/refund`, form);
    expect(review.status, review.text).to.equal(200);
    expect(review.text)
      .to.include('<strong>£5.00</strong>')
      .and.include('1 × ' + sku('low'))
      .and.include('Wrong size sent');
    expect(await countRows(stack, 'refunds', { order_reference: reference })).to.equal(0);
    const confirmKey = /name="key" value="([^"]+)"/.exec(review.text)![1]!;

    const done = await postConsoleForm(stack, owner, `${detailPath}/refund`, { ...form, key: confirmKey });
    expect(done.status, done.text).to.equal(201);
    expect(done.text).to.include('Refunded £5.00');
    const again = await postConsoleForm(stack, owner, `${detailPath}/refund`, { ...form, key: confirmKey });
    expect(again.status).to.equal(201);
    expect(await countRows(stack, 'refunds', { order_reference: reference })).to.equal(1);
    expect(await providerCalls(reference)).to.equal(1);

    const refused = await postConsoleForm(stack, owner, `${detailPath}/refund`, {
      amount: '500.00',
      reason: 'Too much',
      key: 'console-too-much',
    });
    expect(refused.status).to.equal(422);
    expect(refused.text).to.include('role="alert"').and.include('left to refund');
    const byStaff = await postConsoleForm(stack, staff, `${detailPath}/refund`, { ...form, key: 'console-by-staff' });
    expect(byStaff.status).to.equal(403);
  });
});
