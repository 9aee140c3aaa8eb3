/** Parallel checkouts for a SKU with little stock, on busy cores: never more reservations than units, never a 500. */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import {
  LOW_STOCK,
  checkoutBody,
  completePayment,
  countRows,
  createCheckout,
  sku,
  startCheckoutStack,
  stockOf,
} from './support';
import { expectNoServerErrors, startForSuite, withBusyCores } from '@storefront/testing';

describe('checkout under concurrency on a low-stock SKU', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));

  it('never oversells: as many orders succeed as there are units, the rest are out_of_stock', async () => {
    const lowSku = sku('low');
    // £12.00 + £4.95 shipping.
    const bodies = Array.from({ length: 12 }, () => checkoutBody(16.95, [{ sku: lowSku, quantity: 1 }]));
    const answers = await withBusyCores(() => Promise.all(bodies.map((body) => createCheckout(stack.client(), body))));
    expectNoServerErrors(answers);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((s) => s === 200)).to.have.length(LOW_STOCK);
    expect(statuses.filter((s) => s === 409)).to.have.length(bodies.length - LOW_STOCK);
    // Refused truthfully: the units are held by the orders that got them (decision 1082).
    for (const res of answers.filter((r) => r.status === 409)) {
      expect(res.body.error).to.equal('out_of_stock');
      expect(res.body.detail).to.contain(`${LOW_STOCK} of ${lowSku} are held in other baskets, back by`);
    }
    expect(await stockOf(stack.client(), lowSku)).to.equal(0);
    expect(await countRows(stack, 'orders')).to.equal(LOW_STOCK);

    // Paying every order sells exactly the units there were.
    for (const res of answers.filter((r) => r.status === 200))
      await completePayment(res.body.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    const sold = await stack.checkout!.db('orders').where({ status: 'paid' }).count({ n: '*' }).first();
    expect(Number(sold?.n)).to.equal(LOW_STOCK);
    expect(await stockOf(stack.client(), lowSku)).to.equal(0);
  });
});
