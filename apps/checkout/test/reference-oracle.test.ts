/**
 * Create-checkout is no oracle for checkout_references (security review, finding 3): a
 * reference another customer's order holds is answered like a new one, and every attempt that is
 * not a replay counts on the per-address order look-up limit.
 */
import { expect } from 'chai';
import { startForSuite } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  countRows,
  createCheckout,
  expectCheckout,
  expectLimited,
  newClientAddress,
  newReference,
  signUp,
  startCheckoutStack,
} from './support';

// ghk-cu-50mg (£19.99, not stock-limited) + £4.95 shipping.
const body = (reference = newReference()) => ({
  ...checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]),
  checkout_reference: reference,
});
const LOOKUPS = 6;

describe('checkout: a used checkout_reference is no oracle', () => {
  let stack: Stack;
  startForSuite(
    () =>
      startCheckoutStack({
        ORDER_LOOKUPS_PER_ADDRESS_MAX: String(LOOKUPS),
        CHECKOUTS_PER_ADDRESS_MAX: '1000',
        OPEN_ORDERS_PER_ADDRESS_MAX: '1000',
      }),
    (started) => (stack = started),
  );

  /** An order of a signed-in customer, made from an address of its own. */
  async function accountOrder() {
    const owner = stack.client();
    await signUp(owner);
    const saved = body();
    await expectCheckout(owner, saved);
    return { owner, saved };
  }

  it("answers another account's reference exactly as a new one, to a guest and to another account", async () => {
    const { saved } = await accountOrder();
    const other = stack.client();
    await signUp(other);
    for (const client of [stack.client(), other]) {
      // A body that cannot be accepted: the answer a new reference gets.
      const from = newClientAddress();
      const taken = await createCheckout(client, { ...body(saved.checkout_reference), amount: 1 }, from);
      const fresh = await createCheckout(client, { ...body(), amount: 1 }, from);
      expect(taken.status, taken.text).to.equal(400);
      expect(taken.body).to.deep.equal(fresh.body);
      expect(taken.body.error).to.equal('amount_mismatch');
    }
    expect((await stack.checkout!.store.findByReference(saved.checkout_reference))!.totalPence).to.equal(2494);
    expect(await countRows(stack, 'orders', { reference: saved.checkout_reference })).to.equal(1);
  });

  it("refuses a body that would be accepted under another account's reference, changing nothing", async () => {
    const { saved } = await accountOrder();
    const res = await createCheckout(stack.client(), body(saved.checkout_reference));
    expect(res.status, res.text).to.equal(422);
    expect(res.body).to.deep.include({ success: false, error: 'idempotency_mismatch' });
    const order = (await stack.checkout!.store.findByReference(saved.checkout_reference))!;
    expect(order.accountId).to.be.a('string');
    expect(await countRows(stack, 'orders', { reference: saved.checkout_reference })).to.equal(1);
  });

  it('still answers 422 idempotency_mismatch to its own reference with a different body, and replays it', async () => {
    const { owner, saved } = await accountOrder();
    const res = await createCheckout(owner, { ...saved, amount: 1 });
    expect(res.status, res.text).to.equal(422);
    expect(res.body.error).to.equal('idempotency_mismatch');
    expect((await expectCheckout(owner, saved)).order.reference).to.equal(saved.checkout_reference);
  });

  it("counts probes of another account's reference on the order look-up limit, as new ones and GetOrder", async () => {
    const { saved } = await accountOrder();
    const from = newClientAddress();
    for (let i = 0; i < LOOKUPS; i += 1) {
      const res = await stack
        .client()
        .get(`/api/orders/${encodeURIComponent(newReference('guess'))}`, { 'x-forwarded-for': from });
      expect(res.status, res.text).to.equal(404);
    }
    const taken = await createCheckout(stack.client(), { ...body(saved.checkout_reference), amount: 1 }, from);
    const fresh = await createCheckout(stack.client(), { ...body(), amount: 1 }, from);
    expectLimited(taken, 60);
    expectLimited(fresh, 60);
    expect(taken.body.error).to.equal(fresh.body.error);
  });

  it("counts another body on another guest's reference on the order look-up limit: 422 within, 429 past", async () => {
    const saved = body();
    await expectCheckout(stack.client(), saved);
    const from = newClientAddress();
    for (let i = 0; i < LOOKUPS; i += 1) {
      const res = await createCheckout(stack.client(), { ...saved, amount: 1 }, from);
      expect(res.status, res.text).to.equal(422);
      expect(res.body.error).to.equal('idempotency_mismatch');
    }
    expectLimited(await createCheckout(stack.client(), { ...saved, amount: 1 }, from), 60);
    // The replay itself is never refused by a limit.
    expect((await expectCheckout(stack.client(), saved, from)).order.reference).to.equal(saved.checkout_reference);
  });
});
