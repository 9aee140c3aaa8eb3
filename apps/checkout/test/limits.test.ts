/**
 * Abuse limits on create-checkout and validate-promo, through the gateway: per client address
 * (by its bucket) and per account, shared by every replica, never refusing a replay.
 */
import { expect } from 'chai';
import {
  currentBackend,
  expectNoServerErrors,
  startForSuite,
  type TestResponse,
  withBusyCores,
} from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  LOW_STOCK,
  checkoutBody,
  completePayment,
  countRows,
  createCheckout,
  expectCheckout,
  expectLimited,
  newClientAddress,
  signUp,
  sku,
  startCheckoutStack,
  stockOf,
  type ErrorResult,
} from './support';
import { addressLockRows } from '../src/limits';

// ghk-cu-50mg (£19.99, not stock-limited) + £4.95 shipping.
const unlimitedBody = () => checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]);
// One unit of the low-stock test SKU (£12.00) + £4.95 shipping.
const lowStockBody = (quantity = 1) => checkoutBody((1200 * quantity + 495) / 100, [{ sku: sku('low'), quantity }]);
const NO_OPEN_ORDER_LIMIT = { OPEN_ORDERS_PER_ADDRESS_MAX: '1000', OPEN_ORDERS_PER_ACCOUNT_MAX: '1000' };

const statusesOf = (answers: Array<TestResponse<unknown>>) => answers.map((res) => res.status);
const countOf = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('checkout limits: new checkouts per minute', () => {
  let stack: Stack;
  let nowMs = Date.now();
  before(async () => {
    stack = await startCheckoutStack({ ...NO_OPEN_ORDER_LIMIT, CHECKOUTS_PER_ACCOUNT_MAX: '4' }, undefined, {
      now: () => nowMs,
    });
  });
  after(async () => stack?.stop());

  it('refuses a burst of 60 guest checkouts from one address past 20, Retry-After, no order; others pass', async () => {
    const from = '203.0.113.10';
    const bodies = Array.from({ length: 60 }, unlimitedBody);
    const answers = await withBusyCores(() =>
      Promise.all(bodies.map((body) => createCheckout(stack.client(), body, from))),
    );
    expectNoServerErrors(answers);
    const statuses = statusesOf(answers);
    expect(countOf(statuses, 200), statuses.join(',')).to.equal(20);
    expect(countOf(statuses, 429), statuses.join(',')).to.equal(40);
    for (const res of answers.filter((r) => r.status === 429)) expectLimited(res, 60);
    const refused = bodies.filter((_, i) => answers[i]!.status === 429).map((body) => body.checkout_reference);
    expect(await stack.checkout!.db('orders').whereIn('reference', refused).count({ n: '*' }).first()).to.deep.equal({
      n: 0,
    });
    expect(await countRows(stack, 'orders')).to.equal(20);

    await expectCheckout(stack.client(), unlimitedBody(), '203.0.113.11');

    // A replay of a saved order creates nothing, so the limit does not apply to it.
    const saved = bodies.find((_, i) => answers[i]!.status === 200)!;
    const replay = await expectCheckout(stack.client(), saved, from);
    expect(replay.order.reference).to.equal(saved.checkout_reference);

    nowMs += 60_000;
    await expectCheckout(stack.client(), unlimitedBody(), from);
  });

  it('counts an IPv6 /64 as one client, however its addresses are spelled', async () => {
    const spelling = (i: number) =>
      [
        `2001:DB8:5:6::${i.toString(16)}`,
        `2001:db8:5:6::${i.toString(16)}`,
        `2001:0db8:0005:0006:0:0:0:${i.toString(16)}`,
      ][i % 3]!;
    for (let i = 1; i <= 20; i += 1) await expectCheckout(stack.client(), unlimitedBody(), spelling(i));
    expectLimited(await createCheckout(stack.client(), unlimitedBody(), '2001:db8:5:6:abcd::99'), 60);
    await expectCheckout(stack.client(), unlimitedBody(), '2001:db8:5:7::1');
  });

  it('limits new checkouts per account, from whatever address', async () => {
    const client = stack.client();
    await signUp(client);
    for (let i = 0; i < 4; i += 1) await expectCheckout(client, unlimitedBody());
    expectLimited(await createCheckout(client, unlimitedBody()), 60);
    // A guest from the same addresses is another holder.
    await expectCheckout(stack.client(), unlimitedBody());
  });
});

describe('checkout limits: a new reference counts as an order look-up and as a new checkout', () => {
  let stack: Stack;
  startForSuite(
    () =>
      startCheckoutStack({
        ...NO_OPEN_ORDER_LIMIT,
        CHECKOUTS_PER_ADDRESS_MAX: '2',
        ORDER_LOOKUPS_PER_ADDRESS_MAX: '3',
      }),
    (started) => (stack = started),
  );

  it('refuses past either limit, naming the look-up limit when both are over, and saves nothing', async () => {
    const from = newClientAddress();
    await expectCheckout(stack.client(), unlimitedBody(), from);
    await expectCheckout(stack.client(), unlimitedBody(), from);
    // Third new reference: look-ups 3 of 3, checkouts 3 of 2.
    const overCheckouts = await createCheckout(stack.client(), unlimitedBody(), from);
    expectLimited(overCheckouts, 60);
    expect((overCheckouts.body as ErrorResult).detail).to.match(/^Too many new checkouts/);
    // Fourth: both over; the look-up limit is the one named.
    const overBoth = unlimitedBody();
    const refused = await createCheckout(stack.client(), overBoth, from);
    expectLimited(refused, 60);
    expect((refused.body as ErrorResult).detail).to.match(/^Too many order look-ups from this address/);
    expect(
      await stack.checkout!.db('orders').where({ reference: overBoth.checkout_reference }).count({ n: '*' }).first(),
    ).to.deep.equal({ n: 0 });
  });
});

describe('checkout limits: open unpaid orders', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));

  it('refuses a sixth open order per address until one is paid or failed; 400s and replays count nothing', async () => {
    const from = '203.0.113.20';
    const opened = [];
    for (let i = 0; i < 4; i += 1) opened.push(await expectCheckout(stack.client(), unlimitedBody(), from));
    const wrongAmount = await createCheckout(stack.client(), { ...unlimitedBody(), amount: 1 }, from);
    expect(wrongAmount.status, wrongAmount.text).to.equal(400);
    const fifthBody = unlimitedBody();
    opened.push(await expectCheckout(stack.client(), fifthBody, from));

    const sixth = unlimitedBody();
    expectLimited(await createCheckout(stack.client(), sixth, from), 30 * 60);
    expect(await countRows(stack, 'orders', { reference: sixth.checkout_reference })).to.equal(0);
    // Replaying an open order is not a new one.
    expect((await expectCheckout(stack.client(), fifthBody, from)).order.id).to.equal(opened[4]!.order.id);
    await expectCheckout(stack.client(), unlimitedBody(), '203.0.113.21');

    await completePayment(opened[0]!.hosted_checkout_url, 'pay');
    await completePayment(opened[1]!.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    expect((await stack.checkout!.store.findById(opened[0]!.order.id))!.status).to.equal('paid');
    expect((await stack.checkout!.store.findById(opened[1]!.order.id))!.status).to.equal('failed');
    await expectCheckout(stack.client(), sixth, from);
    await expectCheckout(stack.client(), unlimitedBody(), from);
    expectLimited(await createCheckout(stack.client(), unlimitedBody(), from), 30 * 60);
  });

  it('lets no more than five of twelve parallel checkouts from one address through', async () => {
    const from = '203.0.113.30';
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 12 }, () => createCheckout(stack.client(), unlimitedBody(), from))),
    );
    expectNoServerErrors(answers);
    const statuses = statusesOf(answers);
    expect(countOf(statuses, 200), statuses.join(',')).to.equal(5);
    expect(countOf(statuses, 429), statuses.join(',')).to.equal(7);
    const mine = answers.filter((res) => res.status === 200).map((res) => res.body.order.reference);
    expect(await stack.checkout!.db('orders').whereIn('reference', mine).count({ n: '*' }).first()).to.deep.equal({
      n: 5,
    });
    expect(
      await stack
        .checkout!.db('orders')
        .where({ client_address_key: (await stack.checkout!.store.findByReference(mine[0]!))!.clientAddressKey })
        .count({ n: '*' })
        .first(),
    ).to.deep.equal({ n: 5 });
  });

  it('makes a lost lock row again, so parallel orders are still decided one at a time (MySQL lock rows)', async () => {
    const from = '203.0.113.40';
    const first = await expectCheckout(stack.client(), unlimitedBody(), from);
    const { clientAddressKey } = (await stack.checkout!.store.findByReference(first.checkout_reference))!;
    // The process has made this address's lock row; an operator empties the table.
    await stack.checkout!.db('order_holders').delete();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => createCheckout(stack.client(), unlimitedBody(), from)),
    );
    const statuses = statusesOf(answers);
    expect(countOf(statuses, 200), statuses.join(',')).to.equal(4);
    expect(countOf(statuses, 429), statuses.join(',')).to.equal(4);
    // SQLite's one connection serialises the transactions without them.
    expect(await countRows(stack, 'order_holders', { holder_key: clientAddressKey! })).to.equal(
      currentBackend() === 'mysql' ? 1 : 0,
    );
  });

  it('refuses the sixth open order of one account, whatever addresses it comes from', async () => {
    const client = stack.client();
    await signUp(client);
    for (let i = 0; i < 5; i += 1) await expectCheckout(client, unlimitedBody());
    expectLimited(await createCheckout(client, unlimitedBody()), 30 * 60);
  });
});

describe('checkout limits: an address with a raised open-order limit (decision 1348)', () => {
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack({ OPEN_ORDERS_PER_ADDRESS_MAX: '32', CHECKOUTS_PER_ADDRESS_MAX: '1000' }),
    (started) => (stack = started),
  );

  it('keeps a limit under 32 on one lock row, and spreads a raised one over up to eight', () => {
    expect([5, 31, 32, 63, 64, 128, 10_000].map(addressLockRows)).to.deep.equal([1, 1, 2, 3, 4, 8, 8]);
  });

  it('decides parallel orders of one address on two lock rows, passing its limit of 32 by one at most', async () => {
    const from = '203.0.113.60';
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 48 }, () => createCheckout(stack.client(), unlimitedBody(), from))),
    );
    expectNoServerErrors(answers);
    const statuses = statusesOf(answers);
    expect(countOf(statuses, 200) + countOf(statuses, 429), statuses.join(',')).to.equal(48);
    expect(countOf(statuses, 200), statuses.join(',')).to.be.within(32, 33);
    const saved = answers.find((res) => res.status === 200)!.body.order.reference;
    const { clientAddressKey } = (await stack.checkout!.store.findByReference(saved))!;
    expect(await countRows(stack, 'orders', { client_address_key: clientAddressKey! })).to.equal(
      countOf(statuses, 200),
    );
    // SQLite's one connection decides the transactions one at a time without lock rows.
    const lockRows = await stack.checkout!.db('order_holders').where('holder_key', 'like', `${clientAddressKey}#%`);
    expect(lockRows.length).to.equal(currentBackend() === 'mysql' ? 2 : 0);
  });
});

describe('checkout limits: one client may not hold all the stock of a limited SKU', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));

  it('holds at most half the units on hand for one address or account, while other customers still buy', async () => {
    const lowSku = sku('low');
    const from = '203.0.113.40';
    // 3 on hand: one holder may hold 1.
    expectLimited(await createCheckout(stack.client(), lowStockBody(LOW_STOCK), from), 30 * 60);
    expectLimited(await createCheckout(stack.client(), lowStockBody(2), from), 30 * 60);
    await expectCheckout(stack.client(), lowStockBody(1), from);
    expectLimited(await createCheckout(stack.client(), lowStockBody(1), from), 30 * 60);
    expect(await stockOf(stack.client(), lowSku)).to.equal(LOW_STOCK - 1);

    const customer = stack.client();
    await signUp(customer);
    await expectCheckout(customer, lowStockBody(1));
    expectLimited(await createCheckout(customer, lowStockBody(1)), 30 * 60);
    expect(await stockOf(stack.client(), lowSku)).to.equal(LOW_STOCK - 2);

    const other = await expectCheckout(stack.client(), lowStockBody(1), newClientAddress());
    await completePayment(other.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    expect(await stockOf(stack.client(), lowSku)).to.equal(0);
  });

  it('lets parallel orders from one address hold no more than its share', async () => {
    const from = '203.0.113.41';
    // bpc-157-10mg (£39.99) + £4.95 shipping; 3 on hand in the demo catalog, so one holder may hold 1.
    const answers = await withBusyCores(() =>
      Promise.all(
        Array.from({ length: 4 }, () =>
          createCheckout(stack.client(), checkoutBody(44.94, [{ sku: 'bpc-157-10mg', quantity: 1 }]), from),
        ),
      ),
    );
    expectNoServerErrors(answers);
    const statuses = statusesOf(answers);
    expect(countOf(statuses, 200), statuses.join(',')).to.equal(1);
    expect(countOf(statuses, 429), statuses.join(',')).to.equal(3);
    expect(await stockOf(stack.client(), 'bpc-157-10mg')).to.equal(2);
  });
});

describe('checkout limits: promo code checks', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));

  const validate = (code: string, from: string) =>
    stack
      .client()
      .get<ErrorResult & { valid: boolean }>(`/api/validate-promo?code=${code}`, { 'x-forwarded-for': from });

  it('answers at most 30 of 40 parallel checks from one address, then 429 and Retry-After; serves others', async () => {
    const from = '2001:db8:77::1';
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => validate(`GUESS${i}`, i % 2 ? from : from.toUpperCase()))),
    );
    expectNoServerErrors(answers);
    const statuses = statusesOf(answers);
    expect(countOf(statuses, 200), statuses.join(',')).to.equal(30);
    expect(countOf(statuses, 429), statuses.join(',')).to.equal(10);
    for (const res of answers.filter((r) => r.status === 429)) expectLimited(res, 60);
    expectLimited(await validate('WELCOME10', '2001:db8:77::ffff'), 60);
    expect((await validate('WELCOME10', '2001:db8:78::1')).status).to.equal(200);
  });
});

describe('checkout limits: shared by every replica', () => {
  let first: Stack;
  let second: Stack;
  before(async function () {
    // Replicas exist only on MySQL (+ Redis); embedded SQLite runs each app as one process and counts in memory.
    if (currentBackend() !== 'mysql') this.skip();
    first = await startCheckoutStack({
      CHECKOUTS_PER_ADDRESS_MAX: '4',
      OPEN_ORDERS_PER_ADDRESS_MAX: '3',
      PROMO_CHECKS_PER_ADDRESS_MAX: '4',
    });
    second = await startCheckoutStack(
      { CHECKOUTS_PER_ADDRESS_MAX: '4', OPEN_ORDERS_PER_ADDRESS_MAX: '3', PROMO_CHECKS_PER_ADDRESS_MAX: '4' },
      undefined,
      { stores: first.stores },
    );
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('counts checkouts, open orders and promo checks per address over 2 gateways and 2 checkout replicas', async () => {
    const opened = [];
    for (const stack of [first, second, first])
      opened.push(await expectCheckout(stack.client(), unlimitedBody(), '203.0.113.50'));
    expectLimited(await createCheckout(second.client(), unlimitedBody(), '203.0.113.50'), 30 * 60);
    // The refusal above was the fourth new checkout of the minute; the fifth is over that limit too.
    await completePayment(opened[0]!.hosted_checkout_url, 'pay');
    await first.checkout!.reconcileNow();
    expectLimited(await createCheckout(first.client(), unlimitedBody(), '203.0.113.50'), 60);

    const validate = (stack: Stack) =>
      stack.client().get(`/api/validate-promo?code=WELCOME10`, { 'x-forwarded-for': '203.0.113.51' });
    for (const stack of [first, second, first, second]) expect((await validate(stack)).status).to.equal(200);
    expectLimited(await validate(first), 60);
    expectLimited(await validate(second), 60);
  });
});
