/**
 * The payment webhook (security review, finding 6): limited per client address on every
 * replica, coalesced per order so a flood of notifications costs one provider read, and the same
 * answer whatever the id names.
 */
import { expect } from 'chai';
import {
  currentBackend,
  expectNoServerErrors,
  type HttpClient,
  startForSuite,
  withBusyCores,
} from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  expectCheckout,
  expectLimited,
  newClientAddress,
  startCheckoutReplica,
  startCheckoutStack,
  type CheckoutResult,
} from './support';

const EVENTS_PER_ADDRESS = 5;
const notify = (client: HttpClient, id: string, from = newClientAddress()) =>
  client.post<{ success: boolean; error?: string }>(
    '/api/payments/events',
    { event_type: 'CHECKOUT_STATUS_CHANGED', id },
    { 'x-forwarded-for': from },
  );
// ghk-cu-50mg (£19.99, not stock-limited) + £4.95 shipping.
const openOrder = (stack: Stack): Promise<CheckoutResult> =>
  expectCheckout(stack.client(), checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]));

describe('checkout: payment notifications', () => {
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack({ PAYMENT_EVENTS_PER_ADDRESS_MAX: String(EVENTS_PER_ADDRESS) }),
    (started) => (stack = started),
  );
  afterEach(() => stack.paymentSandbox!.control.setBehaviour('ok'));

  it('limits notifications per client address: past it 429, Retry-After, the Error body; others served', async () => {
    const from = newClientAddress();
    for (let i = 0; i < EVENTS_PER_ADDRESS; i += 1)
      expect((await notify(stack.client(), `unknown-${i}`, from)).status).to.equal(200);
    const refused = await notify(stack.client(), 'unknown-x', from);
    expectLimited(refused, 60);
    expect(Object.keys(refused.body).sort()).to.deep.equal(['detail', 'error', 'success']);
    expect((await notify(stack.client(), 'unknown-x')).status).to.equal(200);
  });

  it('answers an open order whose provider read fails exactly as an unknown id; the next pass retries it', async () => {
    const result = await openOrder(stack);
    stack.paymentSandbox!.control.setBehaviour('fail');
    const open = await notify(stack.client(), result.id);
    const unknown = await notify(stack.client(), '00000000-0000-4000-8000-000000000000');
    stack.paymentSandbox!.control.setBehaviour('ok');
    expect(open.status, open.text).to.equal(200);
    expect(open.text).to.equal(unknown.text);
    expect(open.body).to.deep.equal({ success: true });
    expect(
      Number(
        (await stack.checkout!.db('orders').where({ reference: result.checkout_reference }).first('next_check_at'))
          .next_check_at,
      ),
    ).to.equal(0);
  });

  it('reads the provider once per burst of notifications on one order, leaving one read to the next pass', async () => {
    const result = await openOrder(stack);
    const reads = () => stack.paymentSandbox!.control.readRequests(result.id);
    const before = reads();
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 20 }, () => notify(stack.client(), result.id))),
    );
    expectNoServerErrors(answers);
    expect(answers.map((res) => res.status)).to.deep.equal(Array.from({ length: 20 }, () => 200));
    expect(reads() - before).to.equal(1);
    for (let i = 0; i < 5; i += 1) await notify(stack.client(), result.id);
    expect(reads() - before).to.equal(1);
    // A notification after that read, maybe for a payment made since, is not lost: the next pass reads the order first.
    expect(
      Number(
        (await stack.checkout!.db('orders').where({ reference: result.checkout_reference }).first('next_check_at'))
          .next_check_at,
      ),
    ).to.equal(0);
  });
});

describe('checkout: payment notifications across replicas', () => {
  let first: Stack;
  let second: Stack;
  before(async function () {
    // Replicas exist only on MySQL (+ Redis); embedded SQLite runs each app as one process.
    if (currentBackend() !== 'mysql') this.skip();
    first = await startCheckoutStack({ PAYMENT_EVENTS_PER_ADDRESS_MAX: String(EVENTS_PER_ADDRESS) });
    second = await startCheckoutReplica(first, { PAYMENT_EVENTS_PER_ADDRESS_MAX: String(EVENTS_PER_ADDRESS) });
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('counts one address and coalesces one order on both gateways and checkout instances', async () => {
    const from = newClientAddress();
    for (let i = 0; i < EVENTS_PER_ADDRESS; i += 1)
      expect((await notify((i % 2 ? first : second).client(), `unknown-${i}`, from)).status).to.equal(200);
    expectLimited(await notify(first.client(), 'unknown-x', from), 60);
    expectLimited(await notify(second.client(), 'unknown-x', from), 60);

    const result = await openOrder(first);
    const before = first.paymentSandbox!.control.readRequests(result.id);
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 10 }, (_, i) => notify((i % 2 ? first : second).client(), result.id))),
    );
    expectNoServerErrors(answers);
    expect(first.paymentSandbox!.control.readRequests(result.id) - before).to.equal(1);
  });
});
