/**
 * Single-use reward codes and capped promo codes are held by an open order like stock: held when
 * the order is saved, used when it is paid, given back when it fails, expires or is removed.
 * Over HTTP through the gateway, and over gRPC straight to the checkout service.
 */
import { expect } from 'chai';
import { checkout } from '@storefront/proto';
import { expectNoServerErrors, type HttpClient, withBusyCores } from '@storefront/testing';
import { type Stack } from '@storefront/platform-testing';
import {
  DELIVERY,
  LOW_STOCK,
  checkoutBody,
  completePayment,
  countRows,
  createCheckout,
  expectCheckout,
  redeemReward,
  signUp,
  sku,
  startCheckoutStack,
  type CheckoutResult,
  type ErrorResult,
} from './support';

const PARALLEL = 20;
const PROMO_CAP = 3;
// £10.04 less 10% (£1.00) + £4.95 shipping.
const DISCOUNTED_AMOUNT = 13.99;
const discountedBody = (code: string) =>
  checkoutBody(DISCOUNTED_AMOUNT, [{ sku: sku('p1004'), quantity: 1 }], { promo_code: code });
// More of the low-stock SKU than there is: £48.00 less 10% (£4.80) + £4.95.
const outOfStockBody = (code: string) =>
  checkoutBody(48.15, [{ sku: sku('low'), quantity: LOW_STOCK + 1 }], { promo_code: code });

describe('checkout: codes held by open orders', () => {
  let stack: Stack;
  before(async () => {
    // Many open orders of one account at once are this suite's subject, not the abuse limits.
    stack = await startCheckoutStack({ OPEN_ORDERS_PER_ACCOUNT_MAX: '100' });
  });
  after(async () => stack?.stop());
  afterEach(() => stack.paymentSandbox!.control.reset());

  const ordersWithCode = (code: string) => countRows(stack, 'orders', { promo_code: code });
  const isValid = async (client: HttpClient, code: string) =>
    (await client.get<{ valid: boolean }>(`/api/validate-promo?code=${code}`)).body.valid;
  const orderStatus = async (reference: string) => (await stack.checkout!.store.findByReference(reference))?.status;
  const rewardHolder = async (code: string) =>
    (await stack.loyalty!.db('redemptions').where({ code }).first('held_order_id')).held_order_id as string | null;

  function expectHeldRefusal(
    res: { status: number; body: ErrorResult; text: string },
    code: string,
    why: string,
  ): void {
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.deep.include({ success: false, error: 'invalid_promo_code' });
    expect(res.body.detail).to.contain(`promo_code ${code}`).and.contain(why);
  }

  async function customerWithCode(): Promise<{ client: HttpClient; userId: string; code: string }> {
    const client = stack.client();
    const userId = await signUp(client);
    return { client, userId, code: await redeemReward(stack, client, userId) };
  }

  async function settle(result: CheckoutResult, action: 'pay' | 'decline'): Promise<void> {
    await completePayment(result.hosted_checkout_url, action);
    await stack.checkout!.reconcileNow();
  }

  describe('a single-use reward code', () => {
    it(`goes to exactly one of ${PARALLEL} checkouts sent at once; the others get 400 and store nothing`, async () => {
      const { client, code } = await customerWithCode();
      const bodies = Array.from({ length: PARALLEL }, () => discountedBody(code));
      const answers = await withBusyCores(() => Promise.all(bodies.map((body) => createCheckout(client, body))));
      expectNoServerErrors(answers);
      const created = answers.filter((res) => res.status === 200);
      expect(created, answers.map((res) => res.text).join('\n')).to.have.length(1);
      for (const res of answers.filter((r) => r.status !== 200))
        expectHeldRefusal(res, code, 'held by another open order');
      expect(await ordersWithCode(code)).to.equal(1);
      expect(await rewardHolder(code)).to.equal(created[0]!.body.order.id);
    });

    it('is refused to a second open order, free again once the first fails, gone once an order is paid', async () => {
      const { client, code } = await customerWithCode();
      expect(await isValid(client, code)).to.equal(true);
      const first = await expectCheckout(client, discountedBody(code));
      expect(await isValid(client, code)).to.equal(false);
      const second = discountedBody(code);
      expectHeldRefusal(await createCheckout(client, second), code, 'held by another open order');
      expect(await orderStatus(second.checkout_reference)).to.equal(undefined);

      await settle(first, 'decline');
      expect(await rewardHolder(code)).to.equal(null);
      expect(await isValid(client, code)).to.equal(true);
      // The refused reference stored nothing, so it may be used again.
      const third = await expectCheckout(client, second);
      await settle(third, 'pay');
      expect(await orderStatus(second.checkout_reference)).to.equal('paid');
      expect(await isValid(client, code)).to.equal(false);
      expectHeldRefusal(await createCheckout(client, discountedBody(code)), code, 'is not valid');
    });

    it('is free again once the order holding it expires unpaid', async () => {
      const { client, code } = await customerWithCode();
      const body = discountedBody(code);
      await expectCheckout(client, body);
      stack.paymentSandbox!.control.advanceClock(31 * 60 * 1000);
      await stack.checkout!.reconcileNow();
      expect(await orderStatus(body.checkout_reference)).to.equal('expired');
      expect(await isValid(client, code)).to.equal(true);
      await expectCheckout(client, discountedBody(code));
    });

    it('is given back when the order is removed for lack of stock', async () => {
      const { client, code } = await customerWithCode();
      const body = outOfStockBody(code);
      const res = await createCheckout(client, body);
      expect(res.status, res.text).to.equal(409);
      expect(res.body.error).to.equal('out_of_stock');
      expect(await orderStatus(body.checkout_reference)).to.equal(undefined);
      expect(await rewardHolder(code)).to.equal(null);
      expect(await isValid(client, code)).to.equal(true);
    });

    it('stays with its own order when the same checkout is retried, in turn or at once', async () => {
      const { client, code } = await customerWithCode();
      const body = discountedBody(code);
      stack.paymentSandbox!.control.setBehaviour('fail');
      expect((await createCheckout(client, body)).status).to.equal(502);
      stack.paymentSandbox!.control.setBehaviour('ok');
      const first = await expectCheckout(client, body);
      const retries = await withBusyCores(() =>
        Promise.all(Array.from({ length: 5 }, () => createCheckout(client, body))),
      );
      expectNoServerErrors(retries);
      for (const res of retries) expect(res.body.order.id, res.text).to.equal(first.order.id);
      expect(await ordersWithCode(code)).to.equal(1);
      expect(await rewardHolder(code)).to.equal(first.order.id);
    });

    it('answers a burst of one new checkout with one order holding the code, and never a 400', async () => {
      const { client, code } = await customerWithCode();
      const body = discountedBody(code);
      const answers = await withBusyCores(() =>
        Promise.all(Array.from({ length: 5 }, () => createCheckout(client, body))),
      );
      expectNoServerErrors(answers);
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409]);
      expect(
        answers.filter((res) => res.status === 409).every((res) => res.body.error === 'request_in_progress'),
      ).to.equal(true);
      expect(await ordersWithCode(code)).to.equal(1);
    });

    it('honours a payment that comes after the order lost its hold: used if free, else left to a person', async () => {
      const { client, code } = await customerWithCode();
      const late = await expectCheckout(client, discountedBody(code));
      // The hold lapsed (checkout could not release or renew it in time) and another order took the code.
      await stack
        .loyalty!.db('redemptions')
        .where({ code })
        .update({ held_until: Date.now() - 1 });
      const other = await expectCheckout(client, discountedBody(code));
      await settle(late, 'pay');
      const paid = (await stack.checkout!.store.findById(late.order.id))!;
      expect(paid).to.deep.include({ status: 'paid' });
      expect(paid.closedAt).to.be.a('number');
      expect(await rewardHolder(code)).to.equal(other.order.id);

      // Free at payment time: the late order uses it.
      const { client: owner, code: freeCode } = await customerWithCode();
      const lapsed = await expectCheckout(owner, discountedBody(freeCode));
      await stack
        .loyalty!.db('redemptions')
        .where({ code: freeCode })
        .update({ held_order_id: null, held_until: null });
      await settle(lapsed, 'pay');
      expect(await stack.loyalty!.db('redemptions').where({ code: freeCode }).first('used_order_id')).to.deep.equal({
        used_order_id: lapsed.order.id,
      });
    });
  });

  describe('a promo code with a redemption cap', () => {
    async function cappedPromo(label: string): Promise<string> {
      const code = `${label}${Date.now().toString(36).toUpperCase()}`;
      await stack.checkout!.store.savePromoCodes([
        { code, discountBasisPoints: 1000, activeFrom: 0, maxRedemptions: PROMO_CAP },
      ]);
      return code;
    }
    const holds = (code: string) => countRows(stack, 'promo_holds', { code });

    it(`is held by at most ${PROMO_CAP} of ${PARALLEL} checkouts sent at once`, async () => {
      const code = await cappedPromo('CAPPED');
      const answers = await withBusyCores(() =>
        Promise.all(Array.from({ length: PARALLEL }, () => createCheckout(stack.client(), discountedBody(code)))),
      );
      expectNoServerErrors(answers);
      const created = answers.filter((res) => res.status === 200);
      expect(created, answers.map((res) => res.text).join('\n')).to.have.length(PROMO_CAP);
      for (const res of answers.filter((r) => r.status !== 200))
        expectHeldRefusal(res, code, `held by other open orders up to its limit of ${PROMO_CAP}`);
      expect(await ordersWithCode(code)).to.equal(PROMO_CAP);
      expect(await holds(code)).to.equal(PROMO_CAP);
      expect(await isValid(stack.client(), code)).to.equal(false);

      // A declined order gives its use back; paid ones turn their holds into redemptions.
      await settle(created[0]!.body, 'decline');
      expect(await holds(code)).to.equal(PROMO_CAP - 1);
      const again = await expectCheckout(stack.client(), discountedBody(code));
      for (const result of [created[1]!.body, created[2]!.body, again]) await settle(result, 'pay');
      expect(await holds(code)).to.equal(0);
      expect(await countRows(stack, 'promo_redemptions', { code })).to.equal(PROMO_CAP);
      expectHeldRefusal(
        await createCheckout(stack.client(), discountedBody(code)),
        code,
        `has reached its limit of ${PROMO_CAP} uses`,
      );
    });

    it('is given back when the order is removed for lack of stock', async () => {
      const code = await cappedPromo('STOCKLESS');
      const body = outOfStockBody(code);
      expect((await createCheckout(stack.client(), body)).status).to.equal(409);
      expect(await holds(code)).to.equal(0);
      expect(await ordersWithCode(code)).to.equal(0);
    });

    it('is held once by a retried checkout', async () => {
      const code = await cappedPromo('RETRIED');
      const body = discountedBody(code);
      const first = await expectCheckout(stack.client(), body);
      expect(await expectCheckout(stack.client(), body)).to.deep.equal(first);
      expect(await holds(code)).to.equal(1);
    });
  });

  describe('over gRPC', () => {
    it(`gives one reward code to exactly one of ${PARALLEL} CreateCheckout calls`, async () => {
      const { userId, code } = await customerWithCode();
      const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
      try {
        const call = (i: number) =>
          rpc.createCheckout(
            {
              checkoutReference: `grpc-${code}-${i}`,
              amountPence: Math.round(DISCOUNTED_AMOUNT * 100),
              currency: 'GBP',
              merchantCode: 'MSTOREFRONT',
              items: [{ sku: sku('p1004'), quantity: 1 }],
              delivery: DELIVERY,
              promoCode: code,
              clientAddress: `192.0.2.${i + 1}`,
            },
            { customer: userId },
          );
        const results = await withBusyCores(() =>
          Promise.allSettled(Array.from({ length: PARALLEL }, (_, i) => call(i))),
        );
        const created = results.filter((result) => result.status === 'fulfilled');
        expect(created).to.have.length(1);
        for (const result of results.filter((r) => r.status === 'rejected')) {
          expect((result as PromiseRejectedResult).reason).to.deep.include({
            kind: 'invalid_argument',
            code: 'invalid_promo_code',
          });
        }
        expect(await ordersWithCode(code)).to.equal(1);
      } finally {
        rpc.close();
      }
    });
  });
});
