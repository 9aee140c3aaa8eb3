/**
 * Open orders may not tie up a stock-limited SKU (security review, finding 4; second review,
 * finding 2): one holder's share is taken of the units other holders leave available, and what
 * holders leave is for every other buyer at once: no cap on all open orders together turns them
 * away while units show as available (decision 1082 replaced decision 0857's cap).
 */
import { expect } from 'chai';
import { expectNoServerErrors, startForSuite, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  completePayment,
  createCheckout,
  expectCheckout,
  expectLimited,
  limitedBody,
  limitedSku,
  newClientAddress,
  signUp,
  startCheckoutStack,
  stockOf,
  type ErrorResult,
} from './support';

const NO_OTHER_LIMITS = { OPEN_ORDERS_PER_ADDRESS_MAX: '1000', CHECKOUTS_PER_ADDRESS_MAX: '1000' };

/** A truthful refusal of a SKU unpaid orders hold: 409 out_of_stock saying how many and when the first comes back. */
function expectHeldElsewhere(res: { status: number; text: string; body: unknown }, stockSku: string, held: number) {
  expect(res.status, res.text).to.equal(409);
  const body = res.body as ErrorResult;
  expect(body.error).to.equal('out_of_stock');
  expect(body.detail).to.match(new RegExp(`${held} of ${stockSku} are held in other baskets, back by \\d\\d:\\d\\d`));
}

describe("checkout limits: one holder's share is of the units still available", () => {
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack(NO_OTHER_LIMITS),
    (started) => (stack = started),
  );

  it('lets two addresses hold no more than 9 of 12 units between them, renewing or not', async () => {
    const stockSku = await limitedSku(stack, 12);
    const [first, second] = [newClientAddress(), newClientAddress()];
    await expectCheckout(stack.client(), limitedBody(stockSku, 6), first);
    // Half of the 6 the first address leaves, not half of the 12 on hand.
    expectLimited(await createCheckout(stack.client(), limitedBody(stockSku, 6), second), 30 * 60);
    expectLimited(await createCheckout(stack.client(), limitedBody(stockSku, 4), second), 30 * 60);
    await expectCheckout(stack.client(), limitedBody(stockSku, 3), second);
    // Neither may top up: the first is past half of the 9 the second leaves, the second at half of the first's 6.
    expectLimited(await createCheckout(stack.client(), limitedBody(stockSku, 1), first), 30 * 60);
    expectLimited(await createCheckout(stack.client(), limitedBody(stockSku, 1), second), 30 * 60);
    expect(await stockOf(stack.client(), stockSku)).to.equal(3);
    // A third customer still buys.
    const third = await expectCheckout(stack.client(), limitedBody(stockSku, 1), newClientAddress());
    await completePayment(third.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    expect(await stockOf(stack.client(), stockSku)).to.equal(2);
  });
});

describe('checkout limits: what holders leave of a limited SKU is for every other buyer', () => {
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack(NO_OTHER_LIMITS),
    (started) => (stack = started),
  );

  it('sells the 3 units two addresses leave of 12 to a guest, a customer and another guest at once', async () => {
    const stockSku = await limitedSku(stack, 12);
    await expectCheckout(stack.client(), limitedBody(stockSku, 6), newClientAddress());
    await expectCheckout(stack.client(), limitedBody(stockSku, 3), newClientAddress());
    expect(await stockOf(stack.client(), stockSku)).to.equal(3);
    const customer = stack.client();
    await signUp(customer);
    const answers = await withBusyCores(() =>
      Promise.all([
        createCheckout(stack.client(), limitedBody(stockSku, 1)),
        createCheckout(customer, limitedBody(stockSku, 1)),
        createCheckout(stack.client(), limitedBody(stockSku, 1)),
      ]),
    );
    expectNoServerErrors(answers);
    expect(
      answers.map((res) => res.status),
      answers.map((res) => res.text).join('\n'),
    ).to.deep.equal([200, 200, 200]);
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
    // Now nothing shows as available, and the refusal says why and until when.
    expectHeldElsewhere(await createCheckout(stack.client(), limitedBody(stockSku, 1)), stockSku, 12);
  });

  it('lets 12 parallel one-unit orders from 12 addresses hold all 12 units; the 13th is told why', async () => {
    const stockSku = await limitedSku(stack, 12);
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 12 }, () => createCheckout(stack.client(), limitedBody(stockSku, 1)))),
    );
    expectNoServerErrors(answers);
    expect(answers.map((res) => res.status)).to.deep.equal(Array.from({ length: 12 }, () => 200));
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
    expectHeldElsewhere(await createCheckout(stack.client(), limitedBody(stockSku, 1)), stockSku, 12);

    // A declined order gives its unit back to the next buyer at once.
    await completePayment(answers[0]!.body.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    expectHeldElsewhere(await createCheckout(stack.client(), limitedBody(stockSku, 1)), stockSku, 12);
  });
});
