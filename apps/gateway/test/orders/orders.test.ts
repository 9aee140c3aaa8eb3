/** GET /api/orders and GET /api/orders/{checkout_reference}: who may read which order, paging, status after payment. */
import { expect } from 'chai';
import {
  currentBackend,
  expectNoServerErrors,
  type HttpClient,
  type TestResponse,
  withBusyCores,
} from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  DELIVERY,
  checkoutBody,
  completePayment,
  expectCheckout,
  expectLimited,
  newClientAddress,
  newReference,
  signUp,
  startCheckoutStack,
  type CheckoutResult,
  type ErrorResult,
  type OrderSummary,
} from '../../../checkout/test/support';

// ghk-cu-50mg (£19.99, not stock-limited) + £4.95 shipping.
const orderBody = () => checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]);

interface OrderDetails extends OrderSummary {
  reservedUntil?: string;
  paymentLink?: string;
  createdAt: string;
  updatedAt: string;
  delivery?: typeof DELIVERY;
}

interface OrderPage {
  orders: OrderDetails[];
  nextCursor?: string;
}

const readOrder = (client: HttpClient, reference: string, from = newClientAddress()) =>
  client.get<OrderDetails & ErrorResult>(`/api/orders/${encodeURIComponent(reference)}`, { 'x-forwarded-for': from });

const listOrders = (client: HttpClient, query = '') => client.get<OrderPage & ErrorResult>(`/api/orders${query}`);

function expectNotFound(res: TestResponse<ErrorResult>, reference: string): void {
  expect(res.status, res.text).to.equal(404);
  expect(res.body).to.deep.include({ success: false, error: 'order_not_found' });
  expect(res.body.detail).to.contain(reference);
}

describe('gateway: reading orders back', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack({ ORDER_LOOKUPS_PER_ADDRESS_MAX: '1000' });
  });
  after(async () => stack?.stop());

  it("shows an account's order to its owner with delivery details and the live payment link", async () => {
    const owner = stack.client();
    await signUp(owner);
    const body = orderBody();
    const created = await expectCheckout(owner, body);

    const res = await readOrder(owner, body.checkout_reference);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const { createdAt, updatedAt, ...order } = res.body;
    expect(order).to.deep.equal({
      ...created.order,
      // Read back, a line names the batches it was packed from: none before dispatch.
      items: created.order.items.map((line) => ({ ...line, batches: [] })),
      paymentLink: created.hosted_checkout_url,
      delivery: DELIVERY,
    });
    expect(order).to.deep.include({
      status: 'pending_payment',
      goods: 19.99,
      shipping: 4.95,
      total: 24.94,
      currency: 'GBP',
    });
    expect(Date.parse(createdAt)).to.be.at.most(Date.parse(updatedAt));
  });

  it("answers 404 for an account's order to another account or no session, as for no order at all", async () => {
    const owner = stack.client();
    await signUp(owner);
    const body = orderBody();
    await expectCheckout(owner, body);
    const stranger = stack.client();
    await signUp(stranger);

    expectNotFound(await readOrder(stranger, body.checkout_reference), body.checkout_reference);
    expectNotFound(await readOrder(stack.client(), body.checkout_reference), body.checkout_reference);
    const missing = newReference('missing');
    expectNotFound(await readOrder(owner, missing), missing);
  });

  it("shows a guest order's status to whoever holds the reference, never its delivery details or email", async () => {
    const body = orderBody();
    const created = await expectCheckout(stack.client(), body);
    const holder = stack.client();
    await signUp(holder);

    for (const reader of [stack.client(), holder]) {
      const res = await readOrder(reader, body.checkout_reference);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({
        reference: body.checkout_reference,
        status: 'pending_payment',
        total: 24.94,
        paymentLink: created.hosted_checkout_url,
      });
      expect(res.body).not.to.have.property('delivery');
      for (const secret of [DELIVERY.email, DELIVERY.name, DELIVERY.line1, DELIVERY.postcode, DELIVERY.phone])
        expect(res.text).not.to.contain(secret);
    }
  });

  it('answers 400 naming the reference when it is longer than 90 characters', async () => {
    const res = await readOrder(stack.client(), 'r'.repeat(91));
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.deep.include({ success: false, error: 'invalid_request' });
    expect(res.body.detail).to.contain('checkout_reference');
  });

  it('says paid once the person has paid, without a payment link, and failed when they declined', async () => {
    const owner = stack.client();
    await signUp(owner);
    const paid = orderBody();
    const declined = orderBody();
    const paidCheckout = await expectCheckout(owner, paid);
    const declinedCheckout = await expectCheckout(owner, declined);
    await completePayment(paidCheckout.hosted_checkout_url, 'pay');
    await completePayment(declinedCheckout.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();

    const paidOrder = await readOrder(owner, paid.checkout_reference);
    expect(paidOrder.body).to.deep.include({ status: 'paid' });
    expect(paidOrder.body).not.to.have.property('paymentLink');
    expect((await readOrder(owner, declined.checkout_reference)).body).to.deep.include({ status: 'failed' });
    const stranger = stack.client();
    await signUp(stranger);
    expectNotFound(await readOrder(stranger, paid.checkout_reference), paid.checkout_reference);
  });

  it("lists only the session's own orders, newest first, a page at a time", async () => {
    const owner = stack.client();
    await signUp(owner);
    const other = stack.client();
    await signUp(other);
    const mine: CheckoutResult[] = [];
    for (let i = 0; i < 3; i += 1) {
      mine.push(await expectCheckout(owner, orderBody()));
      await expectCheckout(other, orderBody());
      await expectCheckout(stack.client(), orderBody());
    }

    const first = await listOrders(owner, '?limit=2');
    expect(first.status, first.text).to.equal(200);
    expect(first.body.orders.map((order) => order.reference)).to.deep.equal([
      mine[2]!.checkout_reference,
      mine[1]!.checkout_reference,
    ]);
    expect(first.body.orders[0]!.delivery).to.deep.equal(DELIVERY);
    expect(first.body.nextCursor).to.be.a('string');
    // An order placed between two pages does not shift the next one.
    const newer = await expectCheckout(owner, orderBody());
    const second = await listOrders(owner, `?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(second.status, second.text).to.equal(200);
    expect(second.body.orders.map((order) => order.reference)).to.deep.equal([mine[0]!.checkout_reference]);
    expect(second.body).not.to.have.property('nextCursor');

    const all = await listOrders(owner);
    expect(all.body.orders.map((order) => order.reference)).to.deep.equal(
      [newer, ...mine.reverse()].map((checkout) => checkout.checkout_reference),
    );
  });

  it('answers 401 to a list without a session, whatever the query', async () => {
    for (const query of ['', '?limit=abc', '?cursor=%25%25']) {
      const res = await listOrders(stack.client(), query);
      expect(res.status, `${query}: ${res.text}`).to.equal(401);
      expect(res.body).to.deep.include({ success: false, error: 'unauthorized' });
    }
  });

  const badPages: Array<[string, string, string]> = [
    ['a limit of 0', '?limit=0', 'limit'],
    ['a limit of 51', '?limit=51', 'limit'],
    ['a limit that is not a number', '?limit=ten', 'limit'],
    ['a cursor that is not base64 JSON', '?cursor=not-a-cursor', 'cursor is not valid'],
    [
      'a cursor of the wrong shape',
      `?cursor=${Buffer.from(JSON.stringify({ createdAt: 1 })).toString('base64url')}`,
      'cursor is not valid',
    ],
    [
      'a forged cursor',
      `?cursor=${Buffer.from(JSON.stringify([1, 'x'.repeat(37)])).toString('base64url')}`,
      'cursor is not valid',
    ],
  ];
  for (const [label, query, field] of badPages) {
    it(`answers 400 naming the field for ${label}`, async () => {
      const owner = stack.client();
      await signUp(owner);
      const res = await listOrders(owner, query);
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.deep.include({ success: false, error: 'invalid_request' });
      expect(res.body.detail).to.contain(field);
    });
  }
});

describe('gateway: order look-ups are limited per address across replicas', () => {
  let first: Stack;
  let second: Stack;
  before(async function () {
    // Replicas exist only on MySQL (+ Redis); embedded SQLite runs each app as one process and counts in memory.
    if (currentBackend() !== 'mysql') this.skip();
    first = await startCheckoutStack({ ORDER_LOOKUPS_PER_ADDRESS_MAX: '4' });
    second = await startCheckoutStack({ ORDER_LOOKUPS_PER_ADDRESS_MAX: '4' }, undefined, { stores: first.stores });
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('counts hits and misses from one address on every gateway and checkout instance, no other address', async () => {
    const body = orderBody();
    await expectCheckout(first.client(), body);
    const from = '203.0.113.60';
    const answers = [];
    for (const stack of [first, second, first, second])
      answers.push(
        await readOrder(stack.client(), answers.length % 2 ? body.checkout_reference : newReference('guess'), from),
      );
    expect(answers.map((res) => res.status)).to.deep.equal([404, 200, 404, 200]);
    expectLimited(await readOrder(first.client(), body.checkout_reference, from), 60);
    expectLimited(await readOrder(second.client(), body.checkout_reference, from), 60);
    expect((await readOrder(second.client(), body.checkout_reference, '203.0.113.61')).status).to.equal(200);
  });

  it('lets exactly the limit of a parallel burst from one address through, spread over both replicas', async () => {
    const body = orderBody();
    await expectCheckout(second.client(), body);
    const from = '203.0.113.62';
    const answers = await withBusyCores(() =>
      Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          readOrder((i % 2 ? first : second).client(), body.checkout_reference, from),
        ),
      ),
    );
    expectNoServerErrors(answers);
    expect(answers.filter((res) => res.status === 200)).to.have.length(4);
    for (const res of answers.filter((answer) => answer.status !== 200)) expectLimited(res, 60);
  });
});
