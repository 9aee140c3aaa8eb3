/**
 * Idempotency on checkout_reference and provider failures, through the gateway against the
 * sandbox provider over real HTTP: one order, one reservation and one provider checkout per
 * reference, whatever the client retries.
 */
import { expect } from 'chai';
import { expectNoServerErrors, startForSuite, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  PROVIDER_TIMEOUT_MS,
  checkoutBody,
  countRows,
  createCheckout,
  expectCheckout,
  signUp,
  startCheckoutStack,
  stockOf,
} from './support';

// tb-500-10mg: £49.99 and stock-limited, so reservations show in /api/stock. 49.99 + 4.95.
const LIMITED_SKU = 'tb-500-10mg';
const limitedBody = () => checkoutBody(54.94, [{ sku: LIMITED_SKU, quantity: 1 }]);

describe('checkout idempotency on checkout_reference', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));
  afterEach(() => stack.paymentSandbox!.control.reset());

  const providerCreates = (reference: string) => stack.paymentSandbox!.control.createRequests(reference);

  it('answers a replay with the same order and link: no second order, reservation or provider checkout', async () => {
    const client = stack.client();
    const stockBefore = await stockOf(client, LIMITED_SKU);
    const body = limitedBody();
    const first = await expectCheckout(client, body);
    const again = await expectCheckout(client, body);
    expect(again).to.deep.equal(first);
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(1);
    expect(providerCreates(body.checkout_reference)).to.equal(1);
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore - 1);
  });

  it('answers 422 idempotency_mismatch to a different body under a used reference, and changes nothing', async () => {
    const body = limitedBody();
    const first = await expectCheckout(stack.client(), body);
    const changed = { ...body, amount: 104.93, items: [{ sku: LIMITED_SKU, quantity: 2 }] };
    const res = await createCheckout(stack.client(), changed);
    expect(res.status, res.text).to.equal(422);
    expect(res.body).to.deep.include({ success: false, error: 'idempotency_mismatch' });
    expect(res.body.detail).to.contain(body.checkout_reference);
    const order = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    expect(order.lines).to.deep.equal([
      { sku: LIMITED_SKU, quantity: 1, unitPricePence: 4999, vatRateBasisPoints: 2000, itemName: 'TB-500 10mg' },
    ]);
    expect(order.providerCheckoutId).to.equal(first.id);
  });

  it('treats the same body from a signed-in customer as a different request', async () => {
    const body = limitedBody();
    await expectCheckout(stack.client(), body);
    const customer = stack.client();
    await signUp(customer);
    const res = await createCheckout(customer, body);
    expect(res.status).to.equal(422);
  });

  it('answers 409 request_in_progress while the first attempt is still running', async () => {
    stack.paymentSandbox!.control.setBehaviour('hang');
    const body = limitedBody();
    const first = createCheckout(stack.client(), body);
    await waitForOrder(stack, body.checkout_reference);
    const duplicate = await createCheckout(stack.client(), body);
    expect(duplicate.status, duplicate.text).to.equal(409);
    expect(duplicate.body.error).to.equal('request_in_progress');
    expect(duplicate.headers.get('retry-after')).to.equal('1');
    expect((await first).status).to.equal(502);
    stack.paymentSandbox!.control.setBehaviour('ok');
    await expectCheckout(stack.client(), body);
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(1);
  });

  it('makes exactly one order, reservation and provider checkout of concurrent duplicates on busy cores', async () => {
    const client = stack.client();
    const stockBefore = await stockOf(client, LIMITED_SKU);
    const body = limitedBody();
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 8 }, () => createCheckout(stack.client(), body))),
    );
    expectNoServerErrors(answers);
    const succeeded = answers.filter((res) => res.status === 200);
    expect(
      answers.map((res) => res.status).every((status) => status === 200 || status === 409),
      answers.map((r) => r.text).join('\n'),
    ).to.equal(true);
    expect(succeeded.length).to.be.at.least(1);
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error).to.equal('request_in_progress');
    for (const res of succeeded) expect(res.body).to.deep.equal(succeeded[0]!.body);
    const settled = await expectCheckout(client, body);
    expect(settled.id).to.equal(succeeded[0]!.body.id);
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(1);
    expect(providerCreates(body.checkout_reference)).to.equal(1);
    expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore - 1);
  });

  it("lets a retry take over once a crashed attempt's lease has run out", async () => {
    stack.paymentSandbox!.control.setBehaviour('fail');
    const body = limitedBody();
    expect((await createCheckout(stack.client(), body)).status).to.equal(502);
    stack.paymentSandbox!.control.setBehaviour('ok');
    // As if an attempt had claimed the order and its process died.
    const orders = () => stack.checkout!.db('orders').where({ reference: body.checkout_reference });
    await orders().update({ claim_token: 'crashed-attempt', claim_expires_at: Date.now() + 60_000 });
    expect((await createCheckout(stack.client(), body)).status).to.equal(409);
    await orders().update({ claim_expires_at: Date.now() - 1 });
    await expectCheckout(stack.client(), body);
  });
});

describe('checkout when the payment provider fails', () => {
  let stack: Stack;
  startForSuite(startCheckoutStack, (started) => (stack = started));
  afterEach(() => stack.paymentSandbox!.control.reset());

  const failures: Array<['fail' | 'hang' | 'refuse', string]> = [
    ['fail', 'answers 500'],
    ['hang', 'never answers'],
    ['refuse', 'drops the connection'],
  ];
  for (const [behaviour, what] of failures) {
    it(`answers 502 fast when the provider ${what}, keeps order and reservation; a resend completes once`, async () => {
      const client = stack.client();
      const stockBefore = await stockOf(client, LIMITED_SKU);
      const body = limitedBody();
      stack.paymentSandbox!.control.setBehaviour(behaviour);
      const started = Date.now();
      const failed = await createCheckout(client, body);
      const elapsed = Date.now() - started;
      expect(failed.status, failed.text).to.equal(502);
      expect(failed.body).to.deep.include({ success: false, error: 'provider_unavailable' });
      expect(elapsed).to.be.below(PROVIDER_TIMEOUT_MS + 2000);
      const kept = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
      expect(kept).to.deep.include({ status: 'pending_payment', providerCheckoutId: undefined });
      expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore - 1);

      stack.paymentSandbox!.control.setBehaviour('ok');
      const done = await expectCheckout(client, body);
      expect(done.order.id).to.equal(kept.id);
      expect(await expectCheckout(client, body)).to.deep.equal(done);
      expect(await stockOf(client, LIMITED_SKU)).to.equal(stockBefore - 1);
      const listed = await fetch(
        `${stack.paymentSandbox!.url}/v0.1/checkouts?checkout_reference=${body.checkout_reference}`,
        { headers: { authorization: 'Bearer sandbox_key' } },
      );
      expect(await listed.json()).to.have.length(1);
    });
  }

  it('recovers the checkout a lost answer made, via the 409 DUPLICATED_CHECKOUT and a list by reference', async () => {
    const body = limitedBody();
    stack.paymentSandbox!.control.setBehaviour('hang_after_create');
    expect((await createCheckout(stack.client(), body)).status).to.equal(502);
    stack.paymentSandbox!.control.setBehaviour('ok');
    const recovered = await expectCheckout(stack.client(), body);
    expect(stack.paymentSandbox!.control.createRequests(body.checkout_reference)).to.equal(2);
    const listed = (await (
      await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts?checkout_reference=${body.checkout_reference}`, {
        headers: { authorization: 'Bearer sandbox_key' },
      })
    ).json()) as Array<{ id: string }>;
    expect(listed.map((c) => c.id)).to.deep.equal([recovered.id]);
    expect((await stack.checkout!.store.findByReference(body.checkout_reference))!.providerCheckoutId).to.equal(
      recovered.id,
    );
  });

  it('refuses to adopt a provider checkout for the reference with another amount', async () => {
    const body = limitedBody();
    await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox_key', 'content-type': 'application/json' },
      body: JSON.stringify({
        checkout_reference: body.checkout_reference,
        amount: 1,
        currency: 'GBP',
        merchant_code: 'MSTOREFRONT',
      }),
    });
    const res = await createCheckout(stack.client(), body);
    expect(res.status).to.equal(502);
    expect(res.body.error).to.equal('provider_checkout_mismatch');
    expect((await stack.checkout!.store.findByReference(body.checkout_reference))!.providerCheckoutId).to.equal(
      undefined,
    );
  });

  it('refuses to adopt a paid provider checkout for the reference, keeping the order without a link', async () => {
    const body = limitedBody();
    stack.paymentSandbox!.prepareCheckout(
      {
        checkout_reference: body.checkout_reference,
        amount: body.amount,
        currency: 'GBP',
        merchant_code: 'MSTOREFRONT',
      },
      'PAID',
    );
    const res = await createCheckout(stack.client(), body);
    expect(res.status).to.equal(502);
    expect(res.body).to.include({ success: false, error: 'provider_checkout_mismatch' });
    expect(res.body.detail).to.contain('PAID');
    const order = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    expect(order.status).to.equal('pending_payment');
    expect(order.providerCheckoutId).to.equal(undefined);
  });

  it('answers 409 reservation_expired when a retry comes after the stock hold ended', async () => {
    const body = limitedBody();
    stack.paymentSandbox!.control.setBehaviour('fail');
    expect((await createCheckout(stack.client(), body)).status).to.equal(502);
    stack.paymentSandbox!.control.setBehaviour('ok');
    await stack
      .checkout!.db('orders')
      .where({ reference: body.checkout_reference })
      .update({ reserved_until: Date.now() - 1000 });
    const createsBefore = stack.paymentSandbox!.control.createRequests(body.checkout_reference);
    const res = await createCheckout(stack.client(), body);
    expect(res.status).to.equal(409);
    expect(res.body.error).to.equal('reservation_expired');
    // No payment link for stock that is no longer held.
    expect(stack.paymentSandbox!.control.createRequests(body.checkout_reference)).to.equal(createsBefore);
  });
});

describe('checkout when the payment provider refuses connections', () => {
  let stack: Stack;
  before(async () => {
    // No sandbox: the provider address is the discard port, where connections are refused.
    stack = await startCheckoutStack({ SUMUP_API_BASE: 'http://127.0.0.1:9' }, [
      'identity',
      'loyalty',
      'inventory',
      'checkout',
    ]);
  });
  after(async () => stack?.stop());

  it('answers 502 provider_unavailable at once and keeps the order', async () => {
    const body = limitedBody();
    const started = Date.now();
    const res = await createCheckout(stack.client(), body);
    expect(res.status, res.text).to.equal(502);
    expect(res.body.error).to.equal('provider_unavailable');
    expect(Date.now() - started).to.be.below(PROVIDER_TIMEOUT_MS);
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(1);
  });
});

async function waitForOrder(stack: Stack, reference: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await stack.checkout!.store.findByReference(reference)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`order ${reference} was not saved within a second`);
}
