/**
 * Refunds through the sandbox provider (SumUp's refund API over HTTP): refusals change nothing,
 * a lost or timed-out refund is never sent twice and the sweep settles it once, refunds never
 * pass what was paid, and the stock, points and mail of a refund happen exactly once.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { RpcClient } from '@storefront/grpc';
import type { Stack } from '@storefront/platform-testing';
import { checkout, loyalty } from '@storefront/proto';
import { opsEnvFor, runOpsJson, startForSuite } from '@storefront/testing';
import { REFUND_UNCONFIRMED_AFTER_MS } from '../src/domain/refunds';
import { checkoutOps } from '../src/ops/commands';
import { refundMail } from '../src/domain/refund-mail';
import { CheckoutStore } from '../src/stores/checkout';
import { RefundStore } from '../src/stores/refunds';
import { OWNER, PAID_LINES, PAID_PENCE, paidOrder, refundRequest } from './refund-support';
import {
  PROVIDER_TIMEOUT_MS,
  checkoutBody,
  countRows,
  expectCheckout,
  orderNumberOf,
  signUp,
  sku,
  startCheckoutStack,
  stockOf,
} from './support';

async function refusal(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, 'the call was refused').to.be.instanceOf(AppError);
  return error as AppError;
}

describe('refunds through the payment provider', () => {
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  let offsetMs = 0;
  startForSuite(
    () => startCheckoutStack({}, undefined, { now: () => Date.now() + offsetMs }),
    (started) => {
      stack = started;
      rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    },
  );
  // Enough units of the stock-limited SKU for every order here.
  before(() =>
    stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 }),
  );
  after(() => rpc?.close());
  afterEach(() => stack.paymentSandbox!.control.setBehaviour('ok'));

  const refundRow = (id: string) => stack.checkout!.db('refunds').where({ id }).first();
  const orderRow = (reference: string) =>
    stack.checkout!.db('orders').where({ reference }).first('status', 'refunded_pence');
  const refundCalls = async (refundId: string) =>
    stack.paymentSandbox!.control.refundRequests(String((await refundRow(refundId)).provider_transaction_id));
  const mails = (refundId: string) => countRows(stack, 'mail_outbox', { mail_key: `refund:${refundId}` });

  it('refunds part, then the rest: partially_refunded, then refunded, each with its mail and audit row', async () => {
    const { reference } = await paidOrder(stack);
    const first = await rpc.refundOrder(refundRequest(reference, 1000), { staff: OWNER });
    expect(first.refund).to.deep.include({ state: 'succeeded', amountPence: 1000, createdBy: OWNER.email });
    expect(first.order!.details!.summary!.status).to.equal('partially_refunded');
    expect(first.order!.details!.refundedPence).to.equal(1000);

    const rest = await rpc.refundOrder(refundRequest(reference, PAID_PENCE - 1000), { staff: OWNER });
    expect(rest.order!.details!.summary!.status).to.equal('refunded');
    expect(rest.order!.refunds.map((refund) => [refund.amountPence, refund.state])).to.deep.equal([
      [1000, 'succeeded'],
      [PAID_PENCE - 1000, 'succeeded'],
    ]);
    expect(await mails(first.refund!.id)).to.equal(1);
    expect(await mails(rest.refund!.id)).to.equal(1);
    // The body is emptied once sent, so its content is read from the mail the refund composes.
    const queued = await stack
      .checkout!.db('mail_outbox')
      .where({ mail_key: `refund:${first.refund!.id}` })
      .first('recipient', 'subject');
    const order = (await new CheckoutStore(stack.checkout!.db).findByReference(reference))!;
    expect(queued).to.deep.equal({
      recipient: 'ada@example.com',
      subject: `Refund of £10.00 for order ${order.number}`,
    });
    const composed = refundMail(
      { ...order, refundedPence: 0 },
      (await new RefundStore(stack.checkout!.db).byId(first.refund!.id))!,
      'https://shop.test',
    );
    expect(composed.text)
      .to.include('Damaged in transit')
      .and.include(`https://shop.test/orders/${reference}`)
      .and.include('£10.00')
      .and.include('£39.00');
    // Units taken back are named as they were ordered (decision 1297).
    const withUnits = refundMail(
      { ...order, refundedPence: 0 },
      {
        ...(await new RefundStore(stack.checkout!.db).byId(first.refund!.id))!,
        lines: [{ sku: sku('low'), quantity: 2 }],
      },
      'https://shop.test',
    );
    expect(withUnits.text).to.include('Returned: Pricing edge test kit low × 2');
    const audit = await stack
      .checkout!.db('staff_actions')
      .where({ action: 'order_refunded', subject: reference })
      .orderBy('id');
    expect(audit.map((row) => [row.staff_email, JSON.parse(row.after_json).status])).to.deep.equal([
      [OWNER.email, 'partially_refunded'],
      [OWNER.email, 'refunded'],
    ]);

    const after = await refusal(rpc.refundOrder(refundRequest(reference, 1), { staff: OWNER }));
    expect(after.code).to.equal('order_not_refundable');
  });

  it('refuses more than was paid, and a refund of an unpaid order, recording nothing', async () => {
    const { reference, orderId } = await paidOrder(stack);
    const tooMuch = await refusal(rpc.refundOrder(refundRequest(reference, PAID_PENCE + 1), { staff: OWNER }));
    expect(tooMuch).to.deep.include({ kind: 'unprocessable', code: 'refund_exceeds_paid' });
    expect(tooMuch.detail).to.contain(`${PAID_PENCE} pence left`);
    await rpc.refundOrder(refundRequest(reference, PAID_PENCE - 100), { staff: OWNER });
    const pastTheRest = await refusal(rpc.refundOrder(refundRequest(reference, 101), { staff: OWNER }));
    expect(pastTheRest.code).to.equal('refund_exceeds_paid');
    expect(await countRows(stack, 'refunds', { order_id: orderId })).to.equal(1);

    // Paid, but its confirmation steps (stock, points, code) not finished yet.
    const { reference: unsettled } = await paidOrder(stack);
    await stack.checkout!.db('orders').where({ reference: unsettled }).update({ closed_at: null });
    expect(await refusal(rpc.refundOrder(refundRequest(unsettled, 100), { staff: OWNER }))).to.deep.include({
      kind: 'conflict',
      code: 'order_not_settled',
    });

    const unpaid = await expectCheckout(stack.client(), checkoutBody(PAID_PENCE / 100, PAID_LINES));
    const refused = await refusal(rpc.refundOrder(refundRequest(unpaid.checkout_reference, 100), { staff: OWNER }));
    expect(refused).to.deep.include({ kind: 'conflict', code: 'order_not_refundable' });
  });

  it('answers bad input with a clear invalid_argument naming the field', async () => {
    const { reference } = await paidOrder(stack);
    const cases: Array<[Partial<checkout.RefundOrderRequest>, string]> = [
      [{ amountPence: 0 }, 'amount_pence'],
      [{ reason: ' ' }, 'reason'],
      [{ reason: 'x'.repeat(201) }, 'reason'],
      [{ idempotencyKey: '' }, 'idempotency_key'],
      [{ lines: [{ sku: 'not-in-order', quantity: 1 }] }, 'not-in-order'],
      [{ lines: [{ sku: sku('low'), quantity: 3 }] }, sku('low')],
    ];
    for (const [change, named] of cases) {
      const error = await refusal(rpc.refundOrder({ ...refundRequest(reference, 100), ...change }, { staff: OWNER }));
      expect(error.kind, JSON.stringify(change)).to.equal('invalid_argument');
      expect(error.detail).to.contain(named);
    }
    expect((await orderRow(reference)).status).to.equal('paid');
  });

  it('answers the same key with the same refund, and refuses it for another request', async () => {
    const { reference } = await paidOrder(stack);
    const request = refundRequest(reference, 500);
    const first = await rpc.refundOrder(request, { staff: OWNER });
    const again = await rpc.refundOrder(request, { staff: OWNER });
    expect(again.refund!.id).to.equal(first.refund!.id);
    expect(again.order!.details!.refundedPence).to.equal(500);
    expect(await refundCalls(first.refund!.id)).to.equal(1);
    const mismatch = await refusal(rpc.refundOrder({ ...request, amountPence: 600 }, { staff: OWNER }));
    expect(mismatch).to.deep.include({ kind: 'conflict', code: 'idempotency_mismatch' });
  });

  it('a provider refusal fails the refund with its code and changes nothing', async () => {
    const { reference } = await paidOrder(stack);
    const stockBefore = await stockOf(stack.client(), sku('low'));
    stack.paymentSandbox!.control.setBehaviour('refuse_refund');
    const request = refundRequest(reference, 1000, { lines: [{ sku: sku('low'), quantity: 1 }] });
    const refused = await refusal(rpc.refundOrder(request, { staff: OWNER }));
    expect(refused).to.deep.include({ kind: 'unprocessable', code: 'refund_refused' });
    expect(refused.detail).to.contain('REFUND_NOT_ALLOWED').and.not.contain('told to refuse');
    stack.paymentSandbox!.control.setBehaviour('ok');
    // Asked again with the same key, it is the same failed refund, not a new attempt.
    expect((await refusal(rpc.refundOrder(request, { staff: OWNER }))).code).to.equal('refund_refused');
    expect(await orderRow(reference)).to.deep.include({ status: 'paid' });
    expect(Number((await orderRow(reference)).refunded_pence)).to.equal(0);
    expect(await stockOf(stack.client(), sku('low'))).to.equal(stockBefore);
    expect(await countRows(stack, 'staff_actions', { subject: reference })).to.equal(0);
    const [refund] = (await rpc.getOrderForStaff({ checkoutReference: reference }, { staff: OWNER })).order!.refunds;
    expect(refund).to.deep.include({ state: 'failed', failureCode: 'REFUND_NOT_ALLOWED' });
    expect(await mails(refund!.id)).to.equal(0);
    // A failed refund does not count against what is left: the full amount can still be refunded.
    expect((await rpc.refundOrder(refundRequest(reference, PAID_PENCE), { staff: OWNER })).refund!.state).to.equal(
      'succeeded',
    );
  });

  it('a lost answer leaves a refund pending; the sweep reads the provider and settles it once, no resend', async () => {
    const { reference } = await paidOrder(stack);
    stack.paymentSandbox!.control.setBehaviour('hang_after_refund');
    const pending = await rpc.refundOrder(refundRequest(reference, 1500), { staff: OWNER });
    expect(pending.refund!.state).to.equal('pending');
    expect(pending.order!.details!.summary!.status).to.equal('paid');
    stack.paymentSandbox!.control.setBehaviour('ok');
    // Another refund waits until this one is settled: its outcome decides what is left.
    expect((await refusal(rpc.refundOrder(refundRequest(reference, 100), { staff: OWNER }))).code).to.equal(
      'refund_in_progress',
    );

    offsetMs += 2 * PROVIDER_TIMEOUT_MS + 1;
    const sweep = await stack.checkout!.sweepRefundsNow();
    expect(sweep.settled).to.equal(1);
    await stack.checkout!.sweepRefundsNow();
    expect(await refundRow(pending.refund!.id)).to.deep.include({ state: 'succeeded' });
    expect(await refundCalls(pending.refund!.id)).to.equal(1);
    expect(await orderRow(reference)).to.deep.include({ status: 'partially_refunded' });
    expect(await mails(pending.refund!.id)).to.equal(1);
  });

  it('a refund lost on its way is never resent: untraced at the provider, it fails as provider_no_record', async () => {
    const { reference } = await paidOrder(stack);
    stack.paymentSandbox!.control.setBehaviour('hang_refund');
    const pending = await rpc.refundOrder(refundRequest(reference, 700), { staff: OWNER });
    expect(pending.refund!.state).to.equal('pending');
    stack.paymentSandbox!.control.setBehaviour('ok');

    offsetMs += 2 * PROVIDER_TIMEOUT_MS + 1;
    await stack.checkout!.sweepRefundsNow();
    expect(await refundRow(pending.refund!.id)).to.deep.include({ state: 'pending' });
    offsetMs += REFUND_UNCONFIRMED_AFTER_MS;
    await stack.checkout!.sweepRefundsNow();
    expect(await refundRow(pending.refund!.id)).to.deep.include({
      state: 'failed',
      failure_code: 'provider_no_record',
    });
    expect(await refundCalls(pending.refund!.id)).to.equal(1);
    expect(await orderRow(reference)).to.deep.include({ status: 'paid' });
  });

  it('returns the chosen units to stock and reverses the points in proportion, each once', async () => {
    const customer = stack.client();
    const userId = await signUp(customer);
    const { reference, orderId } = await paidOrder(stack, customer);
    const lowSku = sku('low');
    const stockBefore = await stockOf(stack.client(), lowSku);
    const loyaltyRpc = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'checkout');
    try {
      // 34 points were awarded for £34.05 of goods; refunding £17.00 takes back half, rounded down.
      const half = await rpc.refundOrder(refundRequest(reference, 1700, { lines: [{ sku: lowSku, quantity: 1 }] }), {
        staff: OWNER,
      });
      expect(await stockOf(stack.client(), lowSku)).to.equal(stockBefore + 1);
      const entries = () =>
        stack.loyalty!.db('ledger_entries').where({ user_id: userId, type: 'reversal' }).select('points');
      expect((await entries()).map((row) => Number(row.points))).to.deep.equal([-16]);
      // The customer's history names the order by the number they know it by, award and refund alike.
      const number = await orderNumberOf(stack, reference);
      const { body: me } = await customer.get<{ loyalty: { pointsHistory: Array<{ description: string }> } }>(
        '/api/auth/me',
      );
      expect(me.loyalty.pointsHistory.map((entry) => entry.description)).to.include.members([
        `Points for order ${number}`,
        `Refund of order ${number}`,
      ]);

      // The sweep and a repeat downstream change nothing more.
      await stack.checkout!.sweepRefundsNow();
      const repeat = await loyaltyRpc.reversePurchase({
        orderNumber: '',
        refundId: half.refund!.id,
        orderId,
        userId,
        refundedPence: 1700,
        goodsPence: 3405,
      });
      expect(repeat).to.deep.include({ newlyReversed: false, pointsReversed: 16 });
      expect(await stockOf(stack.client(), lowSku)).to.equal(stockBefore + 1);
      expect((await entries()).length).to.equal(1);

      // The rest takes every remaining point of the order, so nothing is left by rounding.
      await rpc.refundOrder(refundRequest(reference, PAID_PENCE - 1700, { lines: [{ sku: lowSku, quantity: 1 }] }), {
        staff: OWNER,
      });
      expect((await entries()).map((row) => Number(row.points))).to.deep.equal([-16, -18]);
      expect(await stockOf(stack.client(), lowSku)).to.equal(stockBefore + 2);
    } finally {
      loyaltyRpc.close();
    }
  });

  it('refuses to return more units of a line than earlier refunds left, naming the rest; refunds nothing', async () => {
    const { reference, orderId } = await paidOrder(stack);
    const lowSku = sku('low');
    await rpc.refundOrder(refundRequest(reference, 100, { lines: [{ sku: lowSku, quantity: 1 }] }), { staff: OWNER });
    const refused = await refusal(
      rpc.refundOrder(refundRequest(reference, 100, { lines: [{ sku: lowSku, quantity: 2 }] }), { staff: OWNER }),
    );
    expect(refused).to.deep.include({ kind: 'invalid_argument', code: 'invalid_refund_lines' });
    expect(refused.detail).to.contain(`2 × ${lowSku} is more than the 1 of it left to return`);
    expect(await countRows(stack, 'refunds', { order_id: orderId })).to.equal(1);
  });

  it('forgives points already spent: the balance goes to 0, not below; the rest is recorded as forgiven', async () => {
    const customer = stack.client();
    const userId = await signUp(customer);
    const { reference } = await paidOrder(stack, customer);
    // As if the customer had spent all but 5 points (set straight in loyalty's store).
    const balance = async () =>
      Number((await stack.loyalty!.db('accounts').where({ user_id: userId }).first('points')).points);
    await stack.loyalty!.db('accounts').where({ user_id: userId }).update({ points: 5 });
    const full = await rpc.refundOrder(refundRequest(reference, PAID_PENCE), { staff: OWNER });
    expect(await balance()).to.equal(0);
    const reversal = await stack.loyalty!.db('purchase_reversals').where({ refund_id: full.refund!.id }).first();
    expect([
      Number(reversal.points_due),
      Number(reversal.points_reversed),
      Number(reversal.points_forgiven),
    ]).to.deep.equal([34, 5, 29]);
  });

  it('refuses a staff member without the owner role, and a call without a staff member', async () => {
    const { reference } = await paidOrder(stack);
    const staffRole = await refusal(
      rpc.refundOrder(refundRequest(reference, 100), { staff: { ...OWNER, role: 'staff' } }),
    );
    expect(staffRole).to.deep.include({ kind: 'permission_denied', code: 'staff_role_refused' });
    const nobody = await refusal(rpc.refundOrder(refundRequest(reference, 100)));
    expect(nobody).to.deep.include({ kind: 'unauthenticated', code: 'staff_unauthorized' });
    expect(await orderRow(reference)).to.deep.include({ status: 'paid' });
  });

  it('ops refunds use the same operation, recorded as the operator; the service then does the stock', async () => {
    const { reference } = await paidOrder(stack);
    const stockBefore = await stockOf(stack.client(), sku('low'));
    const ops = (args: string[]) =>
      runOpsJson<{ refund?: { id: string; state: string }; error?: string }>(
        checkoutOps,
        args,
        opsEnvFor(stack.stores, 'checkout', stack.env),
        'sam',
      );
    const args = [
      'orders',
      'refund',
      reference,
      '--amount',
      '12.00',
      '--reason',
      'Returned unopened',
      '--restock',
      `${sku('low')}:1`,
      '--key',
      `ops-${reference}`,
    ];
    const made = await ops(args);
    expect(made.code, JSON.stringify(made.json)).to.equal(0);
    expect(made.json.refund).to.deep.include({ state: 'succeeded' });
    // The same key again is the same refund.
    expect((await ops(args)).json.refund!.id).to.equal(made.json.refund!.id);
    const bad = await ops(['orders', 'refund', reference, '--amount', '12.5.0', '--reason', 'x']);
    expect(bad.code).to.not.equal(0);
    expect(bad.json.error).to.equal('invalid_amount');

    const audit = await stack
      .checkout!.db('staff_actions')
      .where({ action: 'order_refunded', subject: reference })
      .first('staff_id', 'client_address');
    expect(audit).to.deep.equal({ staff_id: 'ops:sam', client_address: 'ops-cli' });
    expect(await orderRow(reference)).to.deep.include({ status: 'partially_refunded' });
    expect(await stockOf(stack.client(), sku('low'))).to.equal(stockBefore);
    await stack.checkout!.sweepRefundsNow();
    expect(await stockOf(stack.client(), sku('low'))).to.equal(stockBefore + 1);
    expect(await refundCalls(made.json.refund!.id)).to.equal(1);
  });
});
