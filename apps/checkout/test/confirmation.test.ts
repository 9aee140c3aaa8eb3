/**
 * Payment confirmation: a person pays or declines on the sandbox's hosted page, or the link
 * expires; the reconciler (or the provider's notification) re-reads the status and settles the
 * order: stock committed or released, points awarded, promo or reward code counted.
 */
import { expect } from 'chai';
import { startForSuite } from '@storefront/testing';
import { EnvReader, type Env } from '@storefront/config';
import { readLoyaltyConfig, readLoyaltyServeKeys, startLoyaltyServer, type LoyaltyServer } from '@storefront/loyalty';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  completePayment,
  countRows,
  eventually,
  expectCheckout,
  loyaltyPoints,
  redeemReward,
  signUp,
  startCheckoutStack,
  stockOf,
  type CheckoutResult,
} from './support';

// tb-500-10mg at £49.99 with WELCOME10: discount 5.00 (4.999 → 5.00), 44.99 after discount
// (44 points), shipping 4.95, total 49.94.
const LIMITED_SKU = 'tb-500-10mg';
const WELCOME_BODY = () => checkoutBody(49.94, [{ sku: LIMITED_SKU, quantity: 1 }], { promo_code: 'WELCOME10' });
const WELCOME_BONUS = 100;

describe('checkout payment confirmation through the reconciler', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));
  afterEach(() => stack.paymentSandbox!.control.reset());

  const order = (reference: string) => stack.checkout!.store.findByReference(reference);
  const reservationStatus = async (reference: string) =>
    (await stack.inventory!.store.db('reservations').where({ order_reference: reference }).first('status'))?.status as
      string | undefined;

  async function signedInCheckout(
    body = WELCOME_BODY(),
  ): Promise<{ client: HttpClient; result: CheckoutResult; reference: string }> {
    const client = stack.client();
    await signUp(client);
    return { client, result: await expectCheckout(client, body), reference: body.checkout_reference };
  }

  it('PAID: marks the order paid, commits the stock, awards points and counts the promo code', async () => {
    const { client, result, reference } = await signedInCheckout();
    const stockReserved = await stockOf(client, LIMITED_SKU);
    await completePayment(result.hosted_checkout_url, 'pay');
    // The notification went to an address that refuses it: nothing changes until the reconciler looks.
    expect((await order(reference))!.status).to.equal('pending_payment');

    await stack.checkout!.reconcileNow();
    const paid = (await order(reference))!;
    expect(paid.status).to.equal('paid');
    expect(paid.closedAt).to.be.a('number');
    expect(await reservationStatus(reference)).to.equal('committed');
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockReserved);
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
    expect(await countRows(stack, 'promo_redemptions', { order_id: paid.id, code: 'WELCOME10' })).to.equal(1);

    // Later passes and replays change nothing.
    await stack.checkout!.reconcileNow();
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
    const replay = await expectCheckout(client, { ...WELCOME_BODY(), checkout_reference: reference });
    expect(replay.id).to.equal(result.id);
    expect(replay.order.status).to.equal('paid');
  });

  it('FAILED: closes the order and gives the stock back, without points', async () => {
    const client = stack.client();
    await signUp(client);
    const stockBefore = await stockOf(client, LIMITED_SKU);
    const body = WELCOME_BODY();
    const result = await expectCheckout(client, body);
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore - 1);
    await completePayment(result.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('failed');
    expect(await reservationStatus(body.checkout_reference)).to.equal('released');
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore);
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS);
    expect(
      await countRows(stack, 'promo_redemptions', {
        code: 'WELCOME10',
        order_id: (await order(body.checkout_reference))!.id,
      }),
    ).to.equal(0);
  });

  it('EXPIRED: a link nobody paid within 30 minutes closes the order and releases the stock', async () => {
    const client = stack.client();
    const stockBefore = await stockOf(client, LIMITED_SKU);
    const body = WELCOME_BODY();
    await expectCheckout(client, body);
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('pending_payment');
    stack.paymentSandbox!.control.advanceClock(31 * 60 * 1000);
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('expired');
    expect(await reservationStatus(body.checkout_reference)).to.equal('released');
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore);
  });

  it("a replay answers one status: the order's status at the provider (PENDING, then PAID or FAILED)", async () => {
    for (const [action, providerStatus, orderStatus] of [
      ['pay', 'PAID', 'paid'],
      ['decline', 'FAILED', 'failed'],
    ] as const) {
      const { client, result, reference } = await signedInCheckout();
      const replayed = () => expectCheckout(client, { ...WELCOME_BODY(), checkout_reference: reference });
      expect(result).to.deep.include({ status: 'PENDING' });
      expect(await replayed()).to.deep.include({ status: 'PENDING' });
      await completePayment(result.hosted_checkout_url, action);
      await stack.checkout!.reconcileNow();
      const replay = await replayed();
      expect(replay.order.status, action).to.equal(orderStatus);
      expect(replay.status, action).to.equal(providerStatus);
      // Only the status moves; the rest is the object the provider sent when the link was made.
      expect({ ...replay, status: result.status, order: result.order }).to.deep.equal(result);
    }
  });

  it('deactivates a still-pending link once its stock hold has ended', async () => {
    const body = WELCOME_BODY();
    const result = await expectCheckout(stack.client(), body);
    await stack
      .checkout!.db('orders')
      .where({ reference: body.checkout_reference })
      .update({ reserved_until: Date.now() - 1 });
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('expired');
    const provider = await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts/${result.id}`, {
      headers: { authorization: 'Bearer sandbox_key' },
    });
    expect(await provider.json()).to.include({ status: 'EXPIRED' });
  });

  it('closes an order that never got a payment link once its hold ends, the provider holding none for it', async () => {
    const client = stack.client();
    const stockBefore = await stockOf(client, LIMITED_SKU);
    const body = WELCOME_BODY();
    stack.paymentSandbox!.control.setBehaviour('fail');
    expect((await client.post('/api/create-checkout', body)).status).to.equal(502);
    stack.paymentSandbox!.control.setBehaviour('ok');
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('pending_payment');
    await stack
      .checkout!.db('orders')
      .where({ reference: body.checkout_reference })
      .update({ reserved_until: Date.now() - 1 });
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('expired');
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore);
  });

  describe('a payment link made but never recorded (a crash between the two, or a store restored from before)', () => {
    /** Forgets the order's link, as its store would be without the write that recorded it, and ends its hold. */
    async function forgetLink(reference: string): Promise<void> {
      await stack
        .checkout!.db('orders')
        .where({ reference })
        .update({ provider_checkout_id: null, provider_hosted_url: null, reserved_until: Date.now() - 1 });
    }

    it('is found through the provider by reference once the hold ends, and its payment settles the order', async () => {
      const { client, result, reference } = await signedInCheckout();
      const stockReserved = await stockOf(client, LIMITED_SKU);
      await completePayment(result.hosted_checkout_url, 'pay');
      await forgetLink(reference);
      await stack.checkout!.reconcileNow();
      const paid = (await order(reference))!;
      expect([paid.status, paid.providerCheckoutId]).to.deep.equal(['paid', result.id]);
      expect(await reservationStatus(reference)).to.equal('committed');
      expect(await stockOf(client, LIMITED_SKU)).to.equal(stockReserved);
      expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
    });

    it('with no reservation either, is paid and owed its units like an order that paid and waited', async () => {
      const { client, result, reference } = await signedInCheckout();
      const stockReserved = await stockOf(client, LIMITED_SKU);
      await completePayment(result.hosted_checkout_url, 'pay');
      await forgetLink(reference);
      const reservations = () => stack.inventory!.store.db('reservations').where({ order_reference: reference });
      await stack.inventory!.store.db('reservation_lines').where({ order_reference: reference }).delete();
      await reservations().delete();
      await stack.inventory!.store.db('stock').where({ sku: LIMITED_SKU }).decrement('reserved', 1);
      await stack.checkout!.reconcileNow();
      await stack.checkout!.reconcileNow();
      const paid = (await order(reference))!;
      expect([paid.status, paid.stockWait]).to.deep.equal(['paid', 'served']);
      expect(paid.stockSettledAt).to.be.a('number');
      expect(await reservationStatus(reference)).to.equal('committed');
      expect(await stockOf(client, LIMITED_SKU)).to.equal(stockReserved);
      expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
    });
  });

  it('closes an order whose checkout the provider no longer knows, but only once its hold ends', async () => {
    const client = stack.client();
    const stockBefore = await stockOf(client, LIMITED_SKU);
    const body = WELCOME_BODY();
    await expectCheckout(client, body);
    const orders = () => stack.checkout!.db('orders').where({ reference: body.checkout_reference });
    await orders().update({ provider_checkout_id: `forgotten-${body.checkout_reference}` });
    expect((await stack.checkout!.reconcileNow()).failures).to.be.at.least(1);
    expect((await order(body.checkout_reference))!.status).to.equal('pending_payment');
    await orders().update({ reserved_until: Date.now() - 1 });
    await stack.checkout!.reconcileNow();
    expect((await order(body.checkout_reference))!.status).to.equal('expired');
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore);
  });

  it('settles an order without an account: stock committed, no points to give', async () => {
    const body = WELCOME_BODY();
    const result = await expectCheckout(stack.client(), body);
    await completePayment(result.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    const paid = (await order(body.checkout_reference))!;
    expect(paid).to.deep.include({ status: 'paid', accountId: undefined, pointsAwardedAt: undefined });
    expect(paid.closedAt).to.be.a('number');
    expect(await reservationStatus(body.checkout_reference)).to.equal('committed');
  });

  it("counts redemptions against a promo code's limit when orders are paid", async () => {
    await stack.checkout!.store.savePromoCodes([
      { code: 'FIRSTONLY', discountBasisPoints: 1000, activeFrom: 0, maxRedemptions: 1 },
    ]);
    const body = checkoutBody(49.94, [{ sku: LIMITED_SKU, quantity: 1 }], { promo_code: 'firstonly' });
    expect((await stack.client().get<{ valid: boolean }>('/api/validate-promo?code=FIRSTONLY')).body.valid).to.equal(
      true,
    );
    const result = await expectCheckout(stack.client(), body);
    // The open order holds the code's only use.
    expect((await stack.client().get<{ valid: boolean }>('/api/validate-promo?code=FIRSTONLY')).body.valid).to.equal(
      false,
    );
    await completePayment(result.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    expect((await stack.client().get<{ valid: boolean }>('/api/validate-promo?code=FIRSTONLY')).body.valid).to.equal(
      false,
    );
    const again = await stack
      .client()
      .post<{ error: string }>('/api/create-checkout', { ...body, checkout_reference: `${body.checkout_reference}-2` });
    expect(again.status).to.equal(400);
    expect(again.body.error).to.equal('invalid_promo_code');
  });

  it('takes a provider notification as a hint: a real status change settles, a forged one does nothing', async () => {
    const { client, result, reference } = await signedInCheckout();
    const notify = () =>
      stack.client().post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED', id: result.id });
    expect((await notify()).status).to.equal(200);
    expect((await order(reference))!.status).to.equal('pending_payment');
    await completePayment(result.hosted_checkout_url, 'pay');
    // Within the read window of the first notification, the next reconcile pass reads the order first.
    expect((await notify()).status).to.equal(200);
    await stack.checkout!.reconcileNow();
    expect((await order(reference))!.status).to.equal('paid');
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
    expect(
      (
        await stack
          .client()
          .post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED', id: 'no-such-checkout' })
      ).status,
    ).to.equal(200);
    expect(
      (await stack.client().post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED' })).status,
    ).to.equal(400);
  });

  it('settles through the webhook alone when return_url names the gateway', async () => {
    const client = stack.client();
    await signUp(client);
    const body = { ...WELCOME_BODY(), return_url: `${stack.gateway.url}/api/payments/events` };
    const result = await expectCheckout(client, body);
    await completePayment(result.hosted_checkout_url, 'pay');
    // The sandbox notifies before it answers the payer, and the gateway settles before it answers the sandbox.
    expect((await order(body.checkout_reference))!.status).to.equal('paid');
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
  });

  describe('reward codes from the loyalty programme', () => {
    it('are valid for their owner only, discount the order and are used up when it is paid', async () => {
      const owner = stack.client();
      const ownerId = await signUp(owner);
      const code = await redeemReward(stack, owner, ownerId);
      const validate = (client: HttpClient) =>
        client.get<{ valid: boolean; discount?: number }>(`/api/validate-promo?code=${code.toLowerCase()}`);
      expect((await validate(owner)).body).to.deep.equal({ valid: true, code, discount: 0.1 });
      expect((await validate(stack.client())).body.valid).to.equal(false);
      const stranger = stack.client();
      await signUp(stranger);
      expect((await validate(stranger)).body.valid).to.equal(false);
      expect((await stranger.post('/api/create-checkout', { ...WELCOME_BODY(), promo_code: code })).status).to.equal(
        400,
      );

      const body = { ...WELCOME_BODY(), promo_code: code };
      const result = await expectCheckout(owner, body);
      expect(result.order).to.include({ discount: 5, total: 49.94 });
      const pointsBefore = await loyaltyPoints(owner);
      await completePayment(result.hosted_checkout_url, 'pay');
      await stack.checkout!.reconcileNow();
      // The owner is silver (the seed's 500 lifetime points): 44 pounds earn 44 × 1.25 points.
      expect(await loyaltyPoints(owner)).to.equal(pointsBefore + 55);
      expect((await validate(owner)).body.valid).to.equal(false);
      const me = await owner.get<{ loyalty: { redeemedRewards: Array<{ usedAt?: string }> } }>('/api/auth/me');
      expect(me.body.loyalty.redeemedRewards[0]!.usedAt).to.be.a('string');
    });
  });
});

describe('checkout payment confirmation after a crash between steps', () => {
  let stack: Stack;
  let restartedLoyalty: LoyaltyServer | undefined;
  after(async () => restartedLoyalty?.stop());
  // Loyalty in a process of its own, so it can go away while checkout carries on.
  startForSuite(
    () => startCheckoutStack({}, undefined, { layout: 'split' }),
    (started) => (stack = started),
  );

  it('finishes the remaining steps on the next pass, each exactly once', async () => {
    const client = stack.client();
    await signUp(client);
    const body = WELCOME_BODY();
    const result = await expectCheckout(client, body);
    await completePayment(result.hosted_checkout_url, 'pay');

    // Loyalty goes away: the stock step succeeds, the points step cannot.
    const loyaltyAddress = stack.loyalty!.address!;
    await stack.loyalty!.stop!();
    const summary = await stack.checkout!.reconcileNow();
    expect(summary.failures).to.be.at.least(1);
    const halfway = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    expect(halfway.status).to.equal('paid');
    expect(halfway.stockSettledAt).to.be.a('number');
    expect(halfway.pointsAwardedAt).to.equal(undefined);
    expect(halfway.closedAt).to.equal(undefined);

    const mysqlUrl = stack.stores.mysqlUrlFor('loyalty');
    const env: Env = {
      ...stack.env,
      LOYALTY_ADDR: loyaltyAddress,
      ...(mysqlUrl ? { LOYALTY_MYSQL_URL: mysqlUrl } : {}),
    };
    const config = new EnvReader(env);
    restartedLoyalty = await startLoyaltyServer(readLoyaltyConfig(config), {
      migrate: true,
      ...readLoyaltyServeKeys(config),
    });
    await eventually(async () => {
      await stack.checkout!.reconcileNow();
      return (await stack.checkout!.store.findByReference(body.checkout_reference))!.closedAt !== undefined;
    });
    const settled = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    expect(settled.stockSettledAt).to.equal(halfway.stockSettledAt);
    expect(settled.pointsAwardedAt).to.be.a('number');
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
  });
});

describe('checkout reconciler timer', () => {
  // The schedule's delays shortened (a first read after half a second, then at most a second apart) so the test runs
  // quickly.
  const FIRST_CHECK_MS = 500;
  const MAX_CHECK_INTERVAL_MS = 1000;
  let stack: Stack;
  startForSuite(
    () =>
      startCheckoutStack({
        RECONCILE_INTERVAL_MS: '200',
        RECONCILE_FIRST_CHECK_MS: String(FIRST_CHECK_MS),
        RECONCILE_MAX_CHECK_INTERVAL_MS: String(MAX_CHECK_INTERVAL_MS),
      }),
    (started) => (stack = started),
  );

  it("settles paid orders on its own when no notification comes, on the order's schedule", async () => {
    const client = stack.client();
    await signUp(client);
    const body = WELCOME_BODY();
    const result = await expectCheckout(client, body);
    await completePayment(result.hosted_checkout_url, 'pay');
    // The notification goes to a refused address: the schedule's next read finds the payment.
    await eventually(
      async () => (await stack.checkout!.store.findByReference(body.checkout_reference))!.closedAt !== undefined,
      FIRST_CHECK_MS + MAX_CHECK_INTERVAL_MS + 5000,
    );
    expect(await loyaltyPoints(client)).to.equal(WELCOME_BONUS + 44);
  });
});
