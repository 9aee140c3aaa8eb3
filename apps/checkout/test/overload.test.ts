/**
 * Overload answered at once (decision 1348): past the gateway's bound on orders placed at once, and for an order of a
 * stock-limited size that waited its longest for a place in checkout's intake, the documented 503 with Retry-After: 1.
 * Nothing of a refused order is saved, and the same request sent again is served.
 */
import { expect } from 'chai';
import { currentBackend, type TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { skuLockKey } from '../src/stores/holding';
import {
  checkoutBody,
  countRows,
  createCheckout,
  eventually,
  expectCheckout,
  limitedBody,
  limitedSku,
  startCheckoutStack,
  type CheckoutResult,
  type ErrorResult,
} from './support';

const NO_ABUSE_LIMITS = { CHECKOUTS_PER_ADDRESS_MAX: '1000', OPEN_ORDERS_PER_ADDRESS_MAX: '1000' };

function expectBusy(res: TestResponse<CheckoutResult & ErrorResult>): void {
  expect(res.status, res.text).to.equal(503);
  expect(res.headers.get('retry-after')).to.equal('1');
  expect(res.body).to.deep.include({ success: false, error: 'service_unavailable' });
  expect(res.body.detail).to.match(/send the same request again/);
}

const referenceOf = (body: { checkout_reference: string }) => body.checkout_reference;

describe('checkout: overload answered at once', function () {
  this.timeout(60_000);

  describe('past the gateway bound on orders at once', () => {
    let stack: Stack;
    before(async () => {
      stack = await startCheckoutStack({ ...NO_ABUSE_LIMITS, CHECKOUTS_AT_ONCE: '1' });
    });
    after(() => stack?.stop());

    it('answers the orders past it 503 with Retry-After: 1, saves none of them, serves them sent again', async () => {
      const bodies = Array.from({ length: 6 }, () => checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]));
      const answers = await Promise.all(bodies.map((body) => createCheckout(stack.client(), body)));
      expect(answers.map((res) => res.status)).to.satisfy((statuses: number[]) =>
        statuses.every((status) => status === 200 || status === 503),
      );
      const refused = bodies.filter((_, index) => answers[index]!.status === 503);
      expect(refused.length, 'orders past the bound').to.be.above(0);
      for (const [index, body] of bodies.entries()) {
        if (answers[index]!.status === 503) expectBusy(answers[index]!);
        const saved = await countRows(stack, 'orders', { reference: referenceOf(body) });
        expect(saved, referenceOf(body)).to.equal(answers[index]!.status === 200 ? 1 : 0);
      }
      for (const body of refused) expect((await expectCheckout(stack.client(), body)).order_saved).to.equal(true);
    });
  });

  describe("past the wait for a place in checkout's intake", () => {
    let stack: Stack;
    before(async function () {
      // The size's lock row, held by the test, keeps an order inside the intake; SQLite takes no lock rows.
      if (currentBackend() !== 'mysql') this.skip();
      stack = await startCheckoutStack({ ...NO_ABUSE_LIMITS, NEW_ORDERS_AT_ONCE: '1', NEW_ORDER_WAIT_MS: '200' });
    });
    after(() => stack?.stop());

    it('answers a limited size 503 after the wait while another holds the place; unlimited never waits', async () => {
      const db = stack.checkout!.db;
      const dropSku = await limitedSku(stack, 5);
      const key = skuLockKey(dropSku);
      await db('order_holders').insert({ holder_key: key }).onConflict('holder_key').ignore();
      const lock = await db.transaction();
      try {
        await lock('order_holders').where({ holder_key: key }).forUpdate();
        const first = createCheckout(stack.client(), limitedBody(dropSku, 1));
        // The first order is inside the intake, waiting for the lock row, when the others come.
        await eventually(
          async () => {
            const [rows] = (await db.raw(
              "SELECT COUNT(*) AS n FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'",
            )) as [Array<{ n: number }>];
            return Number(rows[0]!.n) > 0;
          },
          5000,
          'the first order waiting on the lock row',
        );
        const secondBody = limitedBody(dropSku, 1);
        const second = await createCheckout(stack.client(), secondBody);
        expectBusy(second);
        expect(await countRows(stack, 'orders', { reference: referenceOf(secondBody) })).to.equal(0);
        const unlimited = await createCheckout(
          stack.client(),
          checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]),
        );
        expect(unlimited.status, unlimited.text).to.equal(200);
        await lock.commit();
        expect((await first).status).to.equal(200);
        expect((await expectCheckout(stack.client(), secondBody)).order_saved).to.equal(true);
      } finally {
        if (!lock.isCompleted()) await lock.rollback();
      }
    });
  });
});
