/**
 * Promo codes with conditions (decision 1324): a minimum of goods before the discount, a customer's first order only,
 * and a number of uses per account. A code that counts an account's orders needs the buyer signed in. Each is checked
 * when the order is priced and again in the transaction that saves it, so concurrent orders of one account cannot
 * both take a once-per-account code; the ops command and the quote say why a code does not apply.
 */
import { expect } from 'chai';
import { expectNoServerErrors, opsEnvFor, runOpsJson, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { checkoutOps } from '../src/ops/commands';
import {
  checkoutBody,
  completePayment,
  createCheckout,
  expectCheckout,
  limitedSku,
  newClientAddress,
  signUp,
  startCheckoutStack,
} from './support';

const SHIPPING_PENCE = 495;
const FREE_SHIPPING_FROM_PENCE = 7500;

/** What create-checkout expects for `units` at £10.00 with `percent` off: the discount rounds half up. */
function amountFor(units: number, percent: number): number {
  const goods = units * 1000;
  const discounted = goods - Math.round((goods * percent) / 100);
  return (discounted + (discounted >= FREE_SHIPPING_FROM_PENCE ? 0 : SHIPPING_PENCE)) / 100;
}

describe('checkout: promo codes with conditions', () => {
  let stack: Stack;
  let stockSku: string;
  before(async () => {
    stack = await startCheckoutStack();
    stockSku = await limitedSku(stack, 500);
  });
  after(async () => stack?.stop());

  const ops = (args: string[]) =>
    runOpsJson(checkoutOps, args, opsEnvFor(stack.stores, 'checkout', stack.env), 'ops-owner');
  let codesSoFar = 0;
  /** A new 10%-off code with these conditions, created by the ops command. */
  async function codeWith(...conditions: string[]): Promise<string> {
    codesSoFar += 1;
    const code = `COND${codesSoFar}${Date.now().toString(36).toUpperCase()}`;
    const created = await ops(['promo', 'create', code, '--discount', '10', ...conditions]);
    expect(created.code, JSON.stringify(created.json)).to.equal(0);
    return code;
  }
  const order = (units: number, code: string) =>
    checkoutBody(amountFor(units, 10), [{ sku: stockSku, quantity: units }], { promo_code: code });

  it('takes a minimum of goods before the discount, and refuses an order below it naming the amount', async () => {
    const code = await codeWith('--min-order', '50');
    const below = await createCheckout(stack.client(), order(4, code));
    expect(below.status).to.equal(400);
    expect(below.body).to.include({ success: false, error: 'invalid_promo_code' });
    expect(below.body.detail).to.equal(`promo_code ${code} needs goods of at least £50.00 before the discount`);
    // £50.00 of goods reaches it, though the discount takes them below.
    const placed = await expectCheckout(stack.client(), order(5, code));
    expect(placed.order.discount).to.equal(5);
  });

  it('quotes why a code does not apply, pricing the lines without it', async () => {
    const code = await codeWith('--min-order', '50');
    const quote = await stack.client().post<{ promo_refusal?: string; total_pence: number }>('/api/quote', {
      items: [{ sku: stockSku, quantity: 2 }],
      promo_code: code,
    });
    expect(quote.status, quote.text).to.equal(200);
    expect(quote.body.promo_refusal).to.equal('needs goods of at least £50.00 before the discount');
    expect(quote.body.total_pence).to.equal(amountFor(2, 0) * 100);
  });

  it('refuses a guest a code that counts an account’s orders, asking them to sign in', async () => {
    const code = await codeWith('--first-order');
    const refused = await createCheckout(stack.client(), order(2, code));
    expect(refused.status).to.equal(400);
    expect(refused.body.detail).to.equal(`promo_code ${code} is limited per customer: sign in to use it`);
  });

  it('gives a first-order code to an account whose only order failed, not once an order is open or paid', async () => {
    const code = await codeWith('--first-order');
    const customer = stack.client();
    await signUp(customer);
    const failed = await expectCheckout(customer, checkoutBody(amountFor(1, 0), [{ sku: stockSku, quantity: 1 }]));
    await completePayment(failed.hosted_checkout_url!, 'decline');
    await stack.checkout!.reconcileNow();

    const first = await expectCheckout(customer, order(2, code));
    expect(first.order.discount).to.equal(2);
    const second = await createCheckout(customer, order(2, code));
    expect(second.status).to.equal(400);
    expect(second.body.detail).to.equal(`promo_code ${code} is for a customer's first order only`);
    // Another account's first order still takes it.
    const other = stack.client();
    await signUp(other);
    expect((await expectCheckout(other, order(2, code))).order.discount).to.equal(2);
  });

  it('counts uses per account: two orders take a twice-per-account code, the third is refused', async () => {
    const code = await codeWith('--per-account', '2');
    const customer = stack.client();
    await signUp(customer);
    await expectCheckout(customer, order(1, code));
    await expectCheckout(customer, order(1, code));
    const third = await createCheckout(customer, order(1, code));
    expect(third.status).to.equal(400);
    expect(third.body.detail).to.equal(
      `promo_code ${code} has been used on this account's orders as many times as it may be (2)`,
    );
  });

  it('lets one of eight concurrent orders of one account take a once-per-account code, on busy cores', async () => {
    const code = await codeWith('--per-account', '1');
    const customer = stack.client();
    await signUp(customer);
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 8 }, () => createCheckout(customer, order(1, code), newClientAddress()))),
    );
    expectNoServerErrors(answers);
    expect(answers.filter((answer) => answer.status === 200)).to.have.length(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 200))
      expect(answer.body).to.include({ error: 'invalid_promo_code' });
    const uses = await stack.checkout!.db('orders').where({ promo_code: code }).count({ n: '*' }).first();
    expect(Number(uses!.n)).to.equal(1);
  });

  it('lists the conditions in the ops command and refuses a bad minimum or limit naming the option', async () => {
    const code = await codeWith('--min-order', '49.99', '--first-order', '--per-account', '3');
    const listed = await ops(['promo', 'list']);
    const promo = (listed.json as { promos: Array<Record<string, unknown>> }).promos.find((row) => row.code === code);
    expect(promo).to.include({ minOrderPence: 4999, firstOrderOnly: true, usesPerAccount: 3 });

    const badMinimum = await ops(['promo', 'create', 'BADMIN1', '--discount', '10', '--min-order', '12.5']);
    expect(badMinimum.json).to.include({ success: false, error: 'invalid_min_order' });
    const badLimit = await ops(['promo', 'create', 'BADLIM1', '--discount', '10', '--per-account', '0']);
    expect(badLimit.json).to.include({ success: false, error: 'invalid_per_account' });
    expect(await stack.checkout!.db('promo_codes').whereIn('code', ['BADMIN1', 'BADLIM1']).first()).to.equal(undefined);
  });
});
