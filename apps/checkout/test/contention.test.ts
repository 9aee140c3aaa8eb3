/**
 * Parallel checkouts on a busy machine: every core kept busy by a spinning child process while
 * 60 checkouts go through two gateways and two checkout instances (one on SQLite) at once. Lock
 * waits and deadlocks in the store may slow an answer or make it a 503 to retry, never a 500.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { currentBackend } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { checkoutBody, createCheckout, newClientAddress, signUp, sku, startCheckoutReplica, startCheckoutStack } from './support';

const CHECKOUTS = 60;
/** The spinning children stop by themselves after this, whatever happens to the test. */
const BUSY_MS = 60_000;
const ACCEPTED = [200, 409, 429, 503];

/** One child per core, each spinning for at most BUSY_MS. */
function keepCoresBusy(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${BUSY_MS}; while (Date.now() < end) {}`], { stdio: 'ignore' }),
  );
}

function stopBusy(children: ChildProcess[]): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}

describe('checkout under CPU contention', function () {
  this.timeout(120_000);
  let first: Stack;
  let second: Stack | undefined;
  let busy: ChildProcess[] = [];
  const limits = { CHECKOUTS_PER_ADDRESS_MAX: '1000', OPEN_ORDERS_PER_ADDRESS_MAX: '1000', OPEN_ORDERS_PER_ACCOUNT_MAX: '1000', ORDER_LOOKUPS_PER_ADDRESS_MAX: '10000' };
  before(async () => {
    first = await startCheckoutStack(limits);
    // Replicas exist only on MySQL (+ Redis); embedded SQLite runs each app as one process.
    if (currentBackend() === 'mysql') second = await startCheckoutReplica(first, limits);
  });
  after(async () => {
    stopBusy(busy);
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
    busy = keepCoresBusy();
    const shared = newClientAddress();
    // A mix that takes every lock the save takes: shared and own holders, a limited SKU, the promo row, duplicates.
    const bodies = Array.from({ length: CHECKOUTS }, (_, i) => {
      const limited = i % 3 === 0;
      const promo = i % 4 === 0;
      const goods = limited ? 1200 : 1999;
      const discount = promo ? Math.round(goods / 10) : 0;
      const body = checkoutBody((goods - discount + 495) / 100, [{ sku: limited ? sku('low') : 'ghk-cu-50mg', quantity: 1 }], promo ? { promo_code: 'WELCOME10' } : {});
      return body;
    });
    // Guest duplicates: the same request twice at once, on either gateway.
    for (let i = 0; i < CHECKOUTS; i += 10) bodies[i + 4] = bodies[i + 3]!;
    const answers = await Promise.all(
      bodies.map((body, i) => {
        const stack = gateways[i % 2]!;
        if (i % 5 === 0) return createCheckout(customers[i % 2]!, body, shared);
        return createCheckout(stack.client(), body, i % 2 ? shared : newClientAddress());
      }),
    );
    stopBusy(busy);
    const statuses = answers.map((res) => res.status);
    for (const res of answers) {
      expect(ACCEPTED, `${res.status}: ${res.text}`).to.include(res.status);
      expect(res.body).to.satisfy((body: { success?: boolean; order_saved?: boolean }) => body.success === false || body.order_saved === true);
    }
    expect(statuses.filter((status) => status === 200).length, statuses.join(',')).to.be.above(0);
    const held = await first.checkout!.db('order_lines as l').join('orders as o', 'o.id', 'l.order_id').where({ 'l.sku': sku('low'), 'o.status': 'pending_payment' }).sum({ n: 'l.quantity' }).first();
    expect(Number(held?.n ?? 0)).to.be.at.most(3);
  });
});
