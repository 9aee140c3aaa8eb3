/**
 * Parallel checkouts on a busy machine: every core kept busy while 60 checkouts go through two
 * gateways and two checkout instances (one on SQLite) at once. Lock waits and deadlocks in the
 * store may slow an answer or make it a 503 to retry, never a 500.
 */
import { expect } from 'chai';
import { currentBackend, expectNoServerErrors, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  createCheckout,
  newClientAddress,
  signUp,
  sku,
  startCheckoutReplica,
  startCheckoutStack,
} from './support';

const CHECKOUTS = 60;

describe('checkout under CPU contention', function () {
  this.timeout(120_000);
  let first: Stack;
  let second: Stack | undefined;
  const limits = {
    CHECKOUTS_PER_ADDRESS_MAX: '1000',
    OPEN_ORDERS_PER_ADDRESS_MAX: '1000',
    OPEN_ORDERS_PER_ACCOUNT_MAX: '1000',
    ORDER_LOOKUPS_PER_ADDRESS_MAX: '10000',
  };
  before(async () => {
    first = await startCheckoutStack(limits);
    // Replicas exist only on MySQL (+ Redis); embedded SQLite runs each app as one process.
    if (currentBackend() === 'mysql') second = await startCheckoutReplica(first, limits);
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('answers 60 parallel checkouts over two gateways with no 500, and never oversells', async () => {
    const gateways = [first, second ?? first];
    const customers = await Promise.all(
      gateways.map(async (stack) => {
        const client = stack.client();
        await signUp(client);
        return client;
      }),
    );
    const shared = newClientAddress();
    // A mix that takes every lock the save takes: shared and own holders, a limited SKU, the promo row, duplicates.
    const bodies = Array.from({ length: CHECKOUTS }, (_, i) => {
      const limited = i % 3 === 0;
      const promo = i % 4 === 0;
      const goods = limited ? 1200 : 1999;
      const discount = promo ? Math.round(goods / 10) : 0;
      const body = checkoutBody(
        (goods - discount + 495) / 100,
        [{ sku: limited ? sku('low') : 'ghk-cu-50mg', quantity: 1 }],
        promo ? { promo_code: 'WELCOME10' } : {},
      );
      return body;
    });
    // Guest duplicates: the same request twice at once, on either gateway.
    for (let i = 0; i < CHECKOUTS; i += 10) bodies[i + 4] = bodies[i + 3]!;
    const answers = await withBusyCores(() =>
      Promise.all(
        bodies.map((body, i) => {
          const stack = gateways[i % 2]!;
          if (i % 5 === 0) return createCheckout(customers[i % 2]!, body, shared);
          return createCheckout(stack.client(), body, i % 2 ? shared : newClientAddress());
        }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expectNoServerErrors(answers);
    for (const res of answers) {
      expect([200, 409, 429, 503], `${res.status}: ${res.text}`).to.include(res.status);
      expect(res.body).to.satisfy(
        (body: { success?: boolean; order_saved?: boolean }) => body.success === false || body.order_saved === true,
      );
    }
    expect(statuses.filter((status) => status === 200).length, statuses.join(',')).to.be.above(0);
    const held = await first
      .checkout!.db('order_lines as l')
      .join('orders as o', 'o.id', 'l.order_id')
      .where({ 'l.sku': sku('low'), 'o.status': 'pending_payment' })
      .sum({ n: 'l.quantity' })
      .first();
    expect(Number(held?.n ?? 0)).to.be.at.most(3);
  });
});
