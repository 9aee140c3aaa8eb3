/**
 * Open orders may not tie up a stock-limited SKU (security review, finding 4): one holder's
 * share is taken of the units other holders leave available, and all open orders together hold
 * at most the SKU's share of its units on hand; both under parallel requests too.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { expectNoServerErrors, startForSuite, type TestResponse, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import {
  checkoutBody,
  completePayment,
  createCheckout,
  expectCheckout,
  expectLimited,
  newClientAddress,
  startCheckoutStack,
  stockOf,
} from './support';

const UNIT_PENCE = 1000;
const NO_OTHER_LIMITS = { OPEN_ORDERS_PER_ADDRESS_MAX: '1000', CHECKOUTS_PER_ADDRESS_MAX: '1000' };

/** A new SKU with `units` on hand, so each test starts from a known stock. */
async function limitedSku(stack: Stack, units: number): Promise<string> {
  const id = `drop-${randomBytes(4).toString('hex')}`;
  await stack.inventory!.store.importCatalog(
    parseCatalogFile({
      products: [
        {
          id,
          name: 'Limited drop',
          description: 'Test product',
          sizes: [{ size: 'one', price: UNIT_PENCE / 100, stock: units }],
        },
      ],
    }),
  );
  return `${id}-one`;
}

// £10.00 a unit, plus £4.95 shipping under £75.
const bodyFor = (stockSku: string, quantity: number) => {
  const goods = UNIT_PENCE * quantity;
  return checkoutBody((goods + (goods >= 7500 ? 0 : 495)) / 100, [{ sku: stockSku, quantity }]);
};

const statusesOf = (answers: Array<TestResponse<unknown>>) => answers.map((res) => res.status);

describe("checkout limits: one holder's share is of the units still available", () => {
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack({ ...NO_OTHER_LIMITS, OPEN_ORDERS_SKU_SHARE_PERCENT: '100' }),
    (started) => (stack = started),
  );

  it('lets two addresses hold no more than 9 of 12 units between them, renewing or not', async () => {
    const stockSku = await limitedSku(stack, 12);
    const [first, second] = [newClientAddress(), newClientAddress()];
    await expectCheckout(stack.client(), bodyFor(stockSku, 6), first);
    // Half of the 6 the first address leaves, not half of the 12 on hand.
    expectLimited(await createCheckout(stack.client(), bodyFor(stockSku, 6), second), 30 * 60);
    expectLimited(await createCheckout(stack.client(), bodyFor(stockSku, 4), second), 30 * 60);
    await expectCheckout(stack.client(), bodyFor(stockSku, 3), second);
    // Neither may top up: the first is past half of the 9 the second leaves, the second at half of the first's 6.
    expectLimited(await createCheckout(stack.client(), bodyFor(stockSku, 1), first), 30 * 60);
    expectLimited(await createCheckout(stack.client(), bodyFor(stockSku, 1), second), 30 * 60);
    expect(await stockOf(stack.client(), stockSku)).to.equal(3);
    // A third customer still buys.
    const third = await expectCheckout(stack.client(), bodyFor(stockSku, 1), newClientAddress());
    await completePayment(third.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    expect(await stockOf(stack.client(), stockSku)).to.equal(2);
  });
});

describe('checkout limits: open orders together hold at most a share of a limited SKU', () => {
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack(NO_OTHER_LIMITS),
    (started) => (stack = started),
  );

  it('holds at most 80% (9 of 12) across holders, and frees room when an order fails', async () => {
    const stockSku = await limitedSku(stack, 12);
    await expectCheckout(stack.client(), bodyFor(stockSku, 6), newClientAddress());
    await expectCheckout(stack.client(), bodyFor(stockSku, 3), newClientAddress());
    const refused = await createCheckout(stack.client(), bodyFor(stockSku, 1), newClientAddress());
    expectLimited(refused, 30 * 60);
    expect(refused.body.detail).to.contain(stockSku).and.contain('9');
    expect(await stockOf(stack.client(), stockSku)).to.equal(3);
  });

  it('lets exactly 9 of 12 parallel one-unit orders from 12 addresses hold the 12-unit SKU', async () => {
    const stockSku = await limitedSku(stack, 12);
    const answers = await withBusyCores(() =>
      Promise.all(
        Array.from({ length: 12 }, () => createCheckout(stack.client(), bodyFor(stockSku, 1), newClientAddress())),
      ),
    );
    expectNoServerErrors(answers);
    const statuses = statusesOf(answers);
    expect(
      statuses.filter((status) => status === 200),
      statuses.join(','),
    ).to.have.length(9);
    for (const res of answers.filter((answer) => answer.status !== 200)) expectLimited(res, 30 * 60);
    expect(await stockOf(stack.client(), stockSku)).to.equal(3);

    // A declined order gives its unit back to the share at once.
    const declined = answers.find((res) => res.status === 200)!;
    await completePayment(declined.body.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    await expectCheckout(stack.client(), bodyFor(stockSku, 1), newClientAddress());
    expectLimited(await createCheckout(stack.client(), bodyFor(stockSku, 1), newClientAddress()), 30 * 60);
  });
});
