/**
 * Confirmation lag stays bounded as open orders pile up: a payment whose notification was lost is
 * confirmed within seconds with 5,000 other open orders, orders whose stock hold ends are closed
 * at once, replicas lease disjoint batches, and two checkout servers reconciling one store
 * settle every order exactly once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import {
  expectNoServerErrors,
  provisionStores,
  type TestStores,
  startForSuite,
  withBusyCores,
} from '@storefront/testing';
import { type Stack } from '@storefront/platform-testing';
import { migrations } from '../src/migrations';
import { CheckoutStore } from '../src/stores/checkout';
import {
  checkoutBody,
  completePayment,
  countRows,
  eventually,
  expectCheckout,
  insertOpenOrders,
  loyaltyPoints,
  signUp,
  startCheckoutReplica,
  startCheckoutStack,
  stockOf,
} from './support';

const LIMITED_SKU = 'tb-500-10mg';
// £49.99 with WELCOME10: 44.99 after discount (44 points), plus 4.95 shipping.
const WELCOME_BODY = () => checkoutBody(49.94, [{ sku: LIMITED_SKU, quantity: 1 }], { promo_code: 'WELCOME10' });
const WELCOME_BONUS = 100;
const RECONCILE_INTERVAL_MS = '2000';
// A new order first read after a second and then at most every 5 s, so the lag test runs quickly;
// passes read at most 50 orders a second, the default, so most of the backlog waits for later passes.
const POLL_POLICY = {
  RECONCILE_FIRST_CHECK_MS: '1000',
  RECONCILE_MAX_CHECK_INTERVAL_MS: '5000',
  RECONCILE_READS_PER_SECOND: '50',
};

describe('checkout: confirmation lag bounded as open orders grow', function () {
  this.timeout(60_000);

  describe('one checkout server with a backlog of 5,000 open orders', () => {
    let stack: Stack;
    startForSuite(
      () => startCheckoutStack({ RECONCILE_INTERVAL_MS, ...POLL_POLICY }),
      (started) => (stack = started),
    );

    it('confirms in 15 s a payment whose notification was lost; closes orders whose hold ended at once', async () => {
      const now = Date.now();
      const { db } = stack.checkout!;
      const sandbox = stack.paymentSandbox!;
      await insertOpenOrders(db, 4_900, {
        createdAt: now - 20 * 60_000,
        reservedUntil: now + 10 * 60_000,
        label: 'backlog',
        sandbox,
      });
      const endingSoon = await insertOpenOrders(db, 100, {
        createdAt: now - 29 * 60_000,
        reservedUntil: now + 3_000,
        label: 'ending',
        sandbox,
      });

      const client = stack.client();
      const body = WELCOME_BODY();
      const result = await expectCheckout(client, body);
      const order = () => stack.checkout!.store.findByReference(body.checkout_reference);
      // The reconciler has read it once, still pending; then the customer pays and the notification is lost.
      await eventually(
        async () =>
          (await stack.checkout!.db('orders').where({ reference: body.checkout_reference }).first('last_checked_at'))
            .last_checked_at !== null,
        10_000,
        'a first read of the new order',
      );
      await completePayment(result.hosted_checkout_url, 'pay');
      const lag = await eventually(
        async () => (await order())!.closedAt !== undefined,
        15_000,
        'confirmation of the paid order',
      );
      expect((await order())!.status).to.equal('paid');
      expect(lag).to.be.below(15_000);

      // The orders whose hold ended were closed as it ended, their links deactivated.
      const stillOpen = async () =>
        Number((await db('orders').whereIn('id', endingSoon).whereNull('closed_at').count({ n: '*' }).first())!.n);
      await eventually(
        async () => (await stillOpen()) === 0,
        Math.max(0, now + 3_000 - Date.now()) + 10_000,
        'closing the orders whose hold ended',
      );
      const statuses = await stack.checkout!.db('orders').whereIn('id', endingSoon).distinct('status');
      expect(statuses.map((row) => row.status)).to.deep.equal(['expired']);
      const sample = (await stack.checkout!.store.findById(endingSoon[0]!))!;
      const provider = await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts/${sample.providerCheckoutId}`, {
        headers: { authorization: 'Bearer sandbox_key' },
      });
      expect(await provider.json()).to.include({ status: 'EXPIRED' });
    });
  });

  describe('a notification that cannot be acted on', () => {
    let stack: Stack;
    startForSuite(startCheckoutStack, (started) => (stack = started));

    it('makes the order due ahead of every other for the next pass', async () => {
      const body = WELCOME_BODY();
      const result = await expectCheckout(stack.client(), body);
      await stack.checkout!.reconcileNow();
      const scheduled = async () =>
        Number(
          (await stack.checkout!.db('orders').where({ reference: body.checkout_reference }).first('next_check_at'))
            .next_check_at,
        );
      expect(await scheduled()).to.be.above(Date.now());
      stack.paymentSandbox!.control.setBehaviour('fail');
      const res = await stack
        .client()
        .post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED', id: result.id });
      stack.paymentSandbox!.control.reset();
      // The answer is the same as for any id; the failure is left to the next pass.
      expect(res.status).to.equal(200);
      expect(await scheduled()).to.equal(0);
    });
  });

  describe('two replicas leasing orders from one store', () => {
    let stores: TestStores;
    let replicas: Knex[];
    before(async () => {
      stores = await provisionStores();
      const config = { service: 'checkout', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('checkout') };
      if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
      replicas = [openDatabase(config), openDatabase(config)];
      await applyMigrations(replicas[0]!, migrations);
    });
    after(async () => {
      await Promise.all((replicas ?? []).map((db) => db.destroy()));
      await stores?.cleanup();
    });

    it('never leases one order to both when they ask for the same due orders at the same moment', async () => {
      const now = Date.now();
      const ids = await insertOpenOrders(replicas[0]!, 300, {
        createdAt: now - 20 * 60_000,
        reservedUntil: now + 10 * 60_000,
        label: 'race',
      });
      const lease = (db: Knex, token: string) =>
        new CheckoutStore(db).leaseOrdersToCheck({
          token,
          now,
          leaseMs: 60_000,
          recentSince: now - 60_000,
          limit: 300,
          sweep: false,
        });
      for (let round = 0; round < 3; round++) {
        const [first, second] = await Promise.all([
          lease(replicas[0]!, `first-${round}`),
          lease(replicas[1]!, `second-${round}`),
        ]);
        const firstIds = new Set(first.map((order) => order.id));
        expect(second.filter((order) => firstIds.has(order.id))).to.deep.equal([]);
        // Between them they took every due order; nothing is left to lease until the leases end.
        expect(first.length + second.length).to.equal(round === 0 ? ids.length : 0);
      }
    });

    it('hands out orders marked due now and orders whose hold ended first, then recent ones, then others', async () => {
      const now = Date.now();
      const db = replicas[0]!;
      const older = await insertOpenOrders(db, 3, {
        createdAt: now - 20 * 60_000,
        reservedUntil: now + 10 * 60_000,
        label: 'older',
      });
      const recent = await insertOpenOrders(db, 3, {
        createdAt: now - 60_000,
        reservedUntil: now + 10 * 60_000,
        label: 'recent',
      });
      const ended = await insertOpenOrders(db, 2, {
        createdAt: now - 29 * 60_000,
        reservedUntil: now - 1,
        label: 'ended',
      });
      const [notified] = await insertOpenOrders(db, 1, {
        createdAt: now - 20 * 60_000,
        reservedUntil: now + 10 * 60_000,
        label: 'notified',
      });
      const store = new CheckoutStore(db);
      // Read on an earlier pass and scheduled well ahead, then a notification could not be acted on.
      await db('orders')
        .where({ id: notified })
        .update({ next_check_at: now + 60_000 });
      await store.markDueNow(notified!);
      const take = async (limit: number) =>
        (
          await store.leaseOrdersToCheck({
            token: `take-${randomUUID().slice(0, 8)}`,
            now,
            leaseMs: 60_000,
            recentSince: now - 15 * 60_000,
            limit,
            sweep: false,
          })
        ).map((order) => order.id);
      expect(new Set(await take(3))).to.deep.equal(new Set([...ended, notified]));
      expect(new Set(await take(3))).to.deep.equal(new Set(recent));
      expect(new Set(await take(3))).to.deep.equal(new Set(older));
    });
  });

  describe('replicas sharing one store', () => {
    let first: Stack;
    let second: Stack;
    before(async () => {
      first = await startCheckoutStack({ RECONCILE_INTERVAL_MS: '200', ...POLL_POLICY });
      second = await startCheckoutReplica(first, { RECONCILE_INTERVAL_MS: '200', ...POLL_POLICY });
    });
    after(async () => {
      await second?.stop();
      await first?.stop();
    });

    it('settles each paid order exactly once while both reconcilers and both gateways race', async () => {
      const customers = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const client = first.client();
          await signUp(client);
          return client;
        }),
      );
      const stockBefore = await stockOf(customers[0]!, LIMITED_SKU);
      const paid = await Promise.all(
        customers.map(async (client) => {
          const body = WELCOME_BODY();
          const result = await expectCheckout(client, body);
          await completePayment(result.hosted_checkout_url, 'pay');
          return { client, reference: body.checkout_reference, providerCheckoutId: result.id };
        }),
      );
      // Half the payments are notified to both replicas at once; the other half only the two reconcilers find.
      const notified = await withBusyCores(() =>
        Promise.all(
          paid
            .filter((_, index) => index % 2 === 0)
            .flatMap(({ providerCheckoutId }) =>
              [first, second].map((stack) =>
                stack
                  .client()
                  .post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED', id: providerCheckoutId }),
              ),
            ),
        ),
      );
      expectNoServerErrors(notified);
      const store = first.checkout!.store;
      await eventually(
        async () => {
          const orders = await Promise.all(paid.map(({ reference }) => store.findByReference(reference)));
          return orders.every((order) => order!.closedAt !== undefined);
        },
        20_000,
        'closing every paid order',
      );
      for (const { client, reference } of paid) {
        const order = (await store.findByReference(reference))!;
        expect(order.status).to.equal('paid');
        expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
        expect(await countRows(first, 'promo_redemptions', { order_id: order.id })).to.equal(1);
        const reservation = await first
          .inventory!.store.db('reservations')
          .where({ order_reference: reference })
          .first('status');
        expect(reservation.status).to.equal('committed');
      }
      expect(await stockOf(customers[0]!, LIMITED_SKU)).to.equal(stockBefore - paid.length);
      // Later passes on both replicas change nothing.
      await Promise.all([first.checkout!.reconcileNow(), second.checkout!.reconcileNow()]);
      for (const { client } of paid) expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
    });
  });
});
