/**
 * The reconciler's schedule does not grow with the rate orders are made at: a new order is first
 * read once its payer could have paid, reads back off as it ages up to a longest interval and come
 * at the end of its stock hold at the latest, and scheduled passes read at most a bounded number
 * of orders a second, however many are due.
 */
import { expect } from 'chai';
import { startForSuite } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { firstCheckAt, nextCheckAt, type PollPolicy } from '../src/domain/confirmation';
import type { Order } from '../src/domain/order';
import { checkoutBody, eventually, expectCheckout, insertOpenOrders, sku, startCheckoutStack } from './support';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const POLICY: PollPolicy = { firstCheckMs: 30 * SECOND, maxCheckIntervalMs: 5 * MINUTE, readsPerSecond: 50 };

describe("checkout: the reconciler's schedule", () => {
  describe('when an order is due a provider read', () => {
    const createdAt = 1_000_000_000;
    const order = { createdAt, reservedUntil: createdAt + 30 * MINUTE } as Order;

    it('is first due once its payer could have paid on the hosted page', () => {
      expect(firstCheckAt(createdAt, POLICY)).to.equal(createdAt + 30 * SECOND);
    });

    it('backs off as the order ages: due again after as long as it is old', () => {
      const readAt = (age: number) => nextCheckAt(order, createdAt + age, POLICY) - createdAt;
      expect(readAt(30 * SECOND)).to.equal(60 * SECOND);
      expect(readAt(60 * SECOND)).to.equal(2 * MINUTE);
      expect(readAt(2 * MINUTE)).to.equal(4 * MINUTE);
      // Never sooner than the first delay, whatever made the read early (a notification).
      expect(readAt(2 * SECOND)).to.equal(32 * SECOND);
    });

    it('is read at most the longest interval apart, and at the end of its hold at the latest', () => {
      expect(nextCheckAt(order, createdAt + 10 * MINUTE, POLICY)).to.equal(createdAt + 15 * MINUTE);
      expect(nextCheckAt(order, createdAt + 28 * MINUTE, POLICY)).to.equal(order.reservedUntil);
    });

    it('makes about ten reads over a 30-minute hold when no notification comes', () => {
      let reads = 0;
      for (let at = firstCheckAt(createdAt, POLICY); at < order.reservedUntil!; at = nextCheckAt(order, at, POLICY))
        reads += 1;
      // The read at the end of the hold closes the order.
      expect(reads + 1).to.be.within(8, 12);
    });
  });

  describe('a new order on a reconciler passing every 200 ms', () => {
    const FIRST_CHECK_MS = 1500;
    let stack: Stack;
    startForSuite(
      () => startCheckoutStack({ RECONCILE_INTERVAL_MS: '200', RECONCILE_FIRST_CHECK_MS: String(FIRST_CHECK_MS) }),
      (started) => (stack = started),
    );

    it('is not read before its first check, and is read once it is due', async () => {
      const body = checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
      await expectCheckout(stack.client(), body);
      const row = () =>
        stack
          .checkout!.db('orders')
          .where({ reference: body.checkout_reference })
          .first('created_at', 'next_check_at', 'last_checked_at');
      const saved = await row();
      expect(Number(saved.next_check_at)).to.equal(Number(saved.created_at) + FIRST_CHECK_MS);
      // Several passes run meanwhile; none reads it.
      await new Promise((resolve) => setTimeout(resolve, FIRST_CHECK_MS / 2));
      expect((await row()).last_checked_at).to.equal(null);
      await eventually(
        async () => (await row()).last_checked_at !== null,
        FIRST_CHECK_MS + 5000,
        'the first read of the order',
      );
      expect(Number((await row()).last_checked_at)).to.be.at.least(Number(saved.created_at) + FIRST_CHECK_MS);
    });
  });

  describe('a backlog of due orders on a reconciler allowed 5 reads a second', () => {
    const INTERVAL_MS = 200;
    let stack: Stack;
    startForSuite(
      () => startCheckoutStack({ RECONCILE_INTERVAL_MS: String(INTERVAL_MS), RECONCILE_READS_PER_SECOND: '5' }),
      (started) => (stack = started),
    );

    it('reads at most one order per 200 ms pass, however many are due', async () => {
      const { db } = stack.checkout!;
      const now = Date.now();
      // Never read (so due since they were made), holds running for another 10 minutes.
      const ids = await insertOpenOrders(db, 40, {
        createdAt: now - 20 * MINUTE,
        reservedUntil: now + 10 * MINUTE,
        label: 'backlog',
      });
      const started = Date.now();
      const read = async () =>
        Number((await db('orders').whereIn('id', ids).whereNotNull('last_checked_at').count({ n: '*' }).first())!.n);
      await eventually(async () => (await read()) >= 3, 5000, 'three passes');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const elapsed = Date.now() - started;
      // One read per pass at most, one pass per interval at most (plus one already under way).
      expect(await read()).to.be.at.most(Math.ceil(elapsed / INTERVAL_MS) + 1);
      expect(await read()).to.be.below(ids.length);
    });
  });
});
