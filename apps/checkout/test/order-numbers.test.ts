/**
 * Order numbers (decisions 1285, 1286): one each, consecutive under concurrency, and an owner's way to name an order.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { expectNoServerErrors, startForSuite, withBusyCores } from '@storefront/testing';
import { checkoutBody, createCheckout, expectCheckout, sku, signUp, startCheckoutStack } from './support';

const body = () => checkoutBody(75, [{ sku: sku('p7500'), quantity: 1 }]);

describe('order numbers', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));

  const numberOf = async (reference: string) => (await stack.checkout!.store.findByReference(reference))!.number;

  it('gives 50 orders created at once 50 distinct consecutive numbers', async () => {
    const bodies = Array.from({ length: 50 }, body);
    const answers = await withBusyCores(() => Promise.all(bodies.map((each) => createCheckout(stack.client(), each))));
    expectNoServerErrors(answers);
    for (const res of answers) expect(res.status, res.text).to.equal(200);
    const numbers = await Promise.all(bodies.map((each) => numberOf(each.checkout_reference)));
    for (const number of numbers) expect(number).to.match(/^SRS-\d{5,}$/);
    const sorted = numbers.map((number) => Number(number.slice('SRS-'.length))).sort((a, b) => a - b);
    expect(sorted[0]).to.be.at.least(10001);
    expect(sorted).to.deep.equal(sorted.map((_, i) => sorted[0]! + i));
  });

  it("finds an account's order by its number, for that account only, and shows the number on its page", async () => {
    const owner = stack.client();
    await signUp(owner);
    const placed = body();
    await expectCheckout(owner, placed);
    const number = await numberOf(placed.checkout_reference);

    const read = await owner.get<{ reference: string }>(`/api/orders/${number.toLowerCase()}`);
    expect(read.status, read.text).to.equal(200);
    expect(read.body.reference).to.equal(placed.checkout_reference);

    const page = await owner.get(`/orders/${number}`, { accept: 'text/html' });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal(`/orders/${placed.checkout_reference}`);
    const shown = await owner.get(`/orders/${placed.checkout_reference}`, { accept: 'text/html' });
    expect(shown.text).to.contain(`Order number: <span class="order-number">${number}</span>`);

    // Anyone else, signed in or not, is told what an unknown reference gets.
    const stranger = stack.client();
    const refused = await stranger.get<{ error: string }>(`/api/orders/${number}`);
    expect(refused.status).to.equal(404);
    expect(refused.body.error).to.equal('order_not_found');
  });

  it('never finds a guest order by its number: its reference is what proves a reader may see it', async () => {
    const placed = body();
    await expectCheckout(stack.client(), placed);
    const res = await stack.client().get<{ error: string }>(`/api/orders/${await numberOf(placed.checkout_reference)}`);
    expect(res.status).to.equal(404);
    expect(res.body.error).to.equal('order_not_found');
  });

  it('answers a malformed number as an unknown reference (404), and an overlong one as a bad one (400)', async () => {
    const owner = stack.client();
    await signUp(owner);
    for (const text of ['SRS-', 'SRS-12x45', 'XYZ-10001', 'SRS-00000000000000000001']) {
      const res = await owner.get<{ success: boolean; error: string; detail: string }>(
        `/api/orders/${encodeURIComponent(text)}`,
      );
      expect(res.status, text).to.equal(404);
      expect(res.body).to.include({ success: false, error: 'order_not_found' });
      expect(res.body.detail).to.contain(text);
    }
    const long = await owner.get<{ success: boolean }>(`/api/orders/SRS-${'1'.repeat(100)}`);
    expect(long.status).to.equal(400);
    expect(long.body.success).to.equal(false);
  });
});
