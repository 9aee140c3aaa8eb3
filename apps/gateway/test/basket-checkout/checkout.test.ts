/** POST /api/create-checkout and GET /api/validate-promo over HTTP: validation, server pricing, promo codes. */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import {
  DELIVERY,
  checkoutBody,
  countRows,
  createCheckout,
  expectCheckout,
  signUp,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { buildOpenApiDocument } from '../../src/api';

// The shop's origins besides PUBLIC_BASE_URL, the only places a payer may be sent back to.
const STOREFRONT_ORIGIN = 'https://www.shop.example';
const AGENT_ORIGIN = 'https://agents.shop.example';

describe('gateway: POST /api/create-checkout validation', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack({ STOREFRONT_ORIGIN, ALLOWED_ORIGINS: AGENT_ORIGIN });
  });
  after(async () => stack?.stop());

  // One line of 10.05 → goods 10.05 + shipping 4.95 = 15.00.
  const valid = () => checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
  const without = (field: string) => {
    const body: Record<string, unknown> = valid();
    delete body[field];
    return body;
  };

  const cases: Array<[string, () => unknown, string]> = [
    ['a missing checkout_reference', () => without('checkout_reference'), 'checkout_reference'],
    ['an empty checkout_reference', () => ({ ...valid(), checkout_reference: '' }), 'checkout_reference'],
    [
      'a checkout_reference of 91 characters',
      () => ({ ...valid(), checkout_reference: 'r'.repeat(91) }),
      'checkout_reference',
    ],
    ['a missing amount', () => without('amount'), 'amount'],
    ['an amount of 0', () => ({ ...valid(), amount: 0 }), 'amount'],
    ['a negative amount', () => ({ ...valid(), amount: -15 }), 'amount'],
    ['an amount as a string', () => ({ ...valid(), amount: '15.00' }), 'amount'],
    ['a missing currency', () => without('currency'), 'currency'],
    ['a currency that is not a code', () => ({ ...valid(), currency: 'pounds' }), 'currency'],
    ['a currency other than GBP', () => ({ ...valid(), currency: 'EUR' }), 'currency'],
    ['a missing merchant_code', () => without('merchant_code'), 'merchant_code'],
    ['another merchant_code', () => ({ ...valid(), merchant_code: 'MOTHERSHOP' }), 'merchant_code'],
    ['a description of 201 characters', () => ({ ...valid(), description: 'd'.repeat(201) }), 'description'],
    ['a return_url that is not a URI', () => ({ ...valid(), return_url: 'not a url' }), 'return_url'],
    [
      'a return_url carrying credentials',
      () => ({ ...valid(), return_url: 'https://hook:s3cret@hooks.example/sumup' }),
      'return_url',
    ],
    [
      'a return_url carrying a user name',
      () => ({ ...valid(), return_url: 'http://token@127.0.0.1:9/api/payments/events' }),
      'return_url',
    ],
    ['a redirect_url that is not http(s)', () => ({ ...valid(), redirect_url: 'javascript:alert(1)' }), 'redirect_url'],
    [
      'a redirect_url on another site',
      () => ({ ...valid(), redirect_url: 'https://evil.example/thanks' }),
      'redirect_url',
    ],
    [
      'a redirect_url on a look-alike host',
      () => ({ ...valid(), redirect_url: `${STOREFRONT_ORIGIN}.evil.example/thanks` }),
      'redirect_url',
    ],
    [
      'a redirect_url over plain http to the storefront',
      () => ({ ...valid(), redirect_url: 'http://www.shop.example/thanks' }),
      'redirect_url',
    ],
    ['missing items', () => without('items'), 'items'],
    ['empty items', () => ({ ...valid(), items: [] }), 'items'],
    ['an item without sku', () => ({ ...valid(), items: [{ quantity: 1 }] }), 'items.0.sku'],
    ['a quantity of 0', () => ({ ...valid(), items: [{ sku: sku('p1005'), quantity: 0 }] }), 'items.0.quantity'],
    ['a quantity of 100', () => ({ ...valid(), items: [{ sku: sku('p1005'), quantity: 100 }] }), 'items.0.quantity'],
    [
      'a fractional quantity',
      () => ({ ...valid(), items: [{ sku: sku('p1005'), quantity: 1.5 }] }),
      'items.0.quantity',
    ],
    [
      'the same SKU twice',
      () => ({
        ...valid(),
        amount: 25.05,
        items: [
          { sku: sku('p1005'), quantity: 1 },
          { sku: sku('p1005'), quantity: 1 },
        ],
      }),
      'items[1].sku',
    ],
    ['an unknown SKU', () => ({ ...valid(), items: [{ sku: 'no-such-thing', quantity: 1 }] }), 'no-such-thing'],
    ['missing delivery', () => without('delivery'), 'delivery'],
    ['a delivery without postcode', () => ({ ...valid(), delivery: { ...DELIVERY, postcode: undefined } }), 'postcode'],
    [
      'a delivery email that is not an email',
      () => ({ ...valid(), delivery: { ...DELIVERY, email: 'nobody' } }),
      'delivery.email',
    ],
    ['a delivery outside GB', () => ({ ...valid(), delivery: { ...DELIVERY, country: 'FR' } }), 'delivery.country'],
    // Finding 8: a line break in any text the order's mails show would add lines of the sender's choosing.
    ...(['name', 'phone', 'line1', 'line2', 'city', 'postcode'] as const).map(
      (field): [string, () => unknown, string] => [
        `a delivery ${field} with a line break`,
        () => ({ ...valid(), delivery: { ...DELIVERY, [field]: 'x\r\nBcc: a@b.co' } }),
        `delivery.${field} must not contain control characters`,
      ],
    ),
    [
      'a delivery name with a C1 next-line character',
      () => ({ ...valid(), delivery: { ...DELIVERY, name: 'Ada\u0085Lovelace' } }),
      'delivery.name must not contain control characters',
    ],
    [
      'a checkout_reference with a line break',
      () => ({ ...valid(), checkout_reference: 'order-1\nBcc: x' }),
      'checkout_reference must not contain control characters',
    ],
    ['an unknown promo code', () => ({ ...valid(), promo_code: 'NOPE' }), 'promo_code'],
    ['an expired promo code', () => ({ ...valid(), promo_code: 'SPRING25' }), 'promo_code'],
    ['a provider that is not configured', () => ({ ...valid(), provider: 'sumup' }), 'provider'],
    ['an unknown field', () => ({ ...valid(), shipping: 0 }), 'shipping'],
  ];

  for (const [label, body, field] of cases) {
    it(`answers 400 naming the field for ${label}, and stores nothing`, async () => {
      const sent = body() as { checkout_reference?: string };
      const res = await createCheckout(stack.client(), sent);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.be.a('string');
      expect(res.body.detail).to.contain(field);
      if (typeof sent.checkout_reference === 'string' && sent.checkout_reference !== '') {
        expect(await countRows(stack, 'orders', { reference: sent.checkout_reference })).to.equal(0);
      }
    });
  }

  it('answers 400 when amount differs from the server total by a penny, with the total in the detail', async () => {
    for (const amount of [14.99, 15.01, 15.005]) {
      const res = await createCheckout(stack.client(), { ...valid(), amount });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('amount_mismatch');
      expect(res.body.detail).to.contain('amount').and.contain('15.00');
    }
  });

  // Security review finding 7: these once answered 500 internal_error.
  it('answers 400 invalid_request naming amount to amounts beyond the bound (1e15, 1e300, 9007199254740993), never 500', async () => {
    for (const amount of ['1e15', '1e300', '9007199254740993']) {
      const body = valid();
      // Sent as written: 9007199254740993 is not a number JavaScript can hold.
      const raw = JSON.stringify({ ...body, amount: 0 }).replace('"amount":0', `"amount":${amount}`);
      const res = await stack
        .client()
        .request<{ success: boolean; error: string; detail: string }>('POST', '/api/create-checkout', {
          body: raw,
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.77' },
        });
      expect(res.status, `${amount}: ${res.text}`).to.equal(400);
      expect(res.body).to.deep.include({ success: false, error: 'invalid_request' });
      expect(res.body.detail).to.contain('amount');
      expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(0);
    }
  });

  it('lets a corrected request reuse the reference of a 400', async () => {
    const body = valid();
    expect((await createCheckout(stack.client(), { ...body, amount: 14.0 })).status).to.equal(400);
    const res = await createCheckout(stack.client(), body);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.order.reference).to.equal(body.checkout_reference);
  });

  it("forwards a redirect_url on any of the shop's origins to the provider as sent", async () => {
    for (const redirectUrl of [
      `${STOREFRONT_ORIGIN}/thanks?from=pay`,
      `${AGENT_ORIGIN}/done`,
      'http://127.0.0.1:9/orders/latest',
    ]) {
      const result = await expectCheckout(stack.client(), { ...valid(), redirect_url: redirectUrl });
      const seen = await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts/${result.id}`, {
        headers: { authorization: 'Bearer sandbox_key' },
      });
      expect(((await seen.json()) as { redirect_url?: string }).redirect_url).to.equal(redirectUrl);
    }
  });

  it('answers 405 to other methods and 404 at /api/notify', async () => {
    expect((await stack.client().get('/api/create-checkout')).status).to.equal(405);
    expect((await stack.client().post('/api/notify', { items: [] })).status).to.equal(404);
  });
});

describe('gateway: create-checkout server pricing against the sandbox provider', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  const priced = async (
    amount: number,
    items: Array<{ sku: string; quantity: number }>,
    extra: Record<string, unknown> = {},
  ) => (await expectCheckout(stack.client(), checkoutBody(amount, items, extra))).order;

  it('answers the provider checkout, order_saved and the order summary in GBP', async () => {
    const body = checkoutBody(74.92, [
      { sku: 'bpc-157-5mg', quantity: 2 },
      { sku: 'ghk-cu-50mg', quantity: 1 },
    ]);
    const result = await expectCheckout(stack.client(), body);
    expect(result).to.include({
      status: 'PENDING',
      amount: 74.92,
      currency: 'GBP',
      checkout_reference: body.checkout_reference,
      order_saved: true,
    });
    expect(result.id).to.be.a('string');
    expect(result.hosted_checkout_url).to.equal(`${stack.paymentSandbox!.url}/pay/${result.id}`);
    expect(result.order).to.deep.include({
      reference: body.checkout_reference,
      goods: 69.97,
      discount: 0,
      shipping: 4.95,
      total: 74.92,
      currency: 'GBP',
      status: 'pending_payment',
    });
    expect(result.order.items).to.deep.equal([
      { sku: 'bpc-157-5mg', quantity: 2, unitPrice: 24.99 },
      { sku: 'ghk-cu-50mg', quantity: 1, unitPrice: 19.99 },
    ]);
    const heldFor = Date.parse(result.order.reservedUntil) - Date.now();
    expect(heldFor).to.be.within(29 * 60 * 1000, 30 * 60 * 1000 + 1000);
  });

  it('answers exactly the documented fields, never the rest of the provider object', async () => {
    const body = checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }], { description: 'One vial' });
    const result = await expectCheckout(stack.client(), body);
    const sent = (await (
      await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts/${result.id}`, {
        headers: { authorization: 'Bearer sandbox_key' },
      })
    ).json()) as Record<string, unknown>;
    expect(sent, 'the provider sends more than the contract names').to.have.property('transactions');
    const stored = (await stack.checkout!.store.findByReference(body.checkout_reference))!.providerCheckout!;
    expect(stored).to.not.have.property('transactions');

    const documented = Object.keys(
      buildOpenApiDocument('http://localhost:8080').components.schemas.CheckoutResult!.properties as Record<
        string,
        unknown
      >,
    );
    expect(documented).to.not.include('transactions');
    expect(Object.keys(result)).to.have.members([
      'id',
      'checkout_reference',
      'amount',
      'currency',
      'merchant_code',
      'description',
      'return_url',
      'status',
      'date',
      'valid_until',
      'hosted_checkout_url',
      'order_saved',
      'order',
    ]);
    expect(documented).to.include.members(Object.keys(result));
    expect(result).to.include({
      amount: 15,
      description: 'One vial',
      date: stored.date,
      valid_until: stored.validUntil,
      return_url: stored.returnUrl,
    });
  });

  it('saves the order with its delivery details, lines and the provider checkout id', async () => {
    const body = checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
    const result = await expectCheckout(stack.client(), body);
    const order = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    expect(order).to.deep.include({
      status: 'pending_payment',
      providerCheckoutId: result.id,
      totalPence: 1500,
      provider: 'sandbox',
      accountId: undefined,
    });
    expect(order.delivery).to.deep.include(DELIVERY);
    expect(order.lines).to.deep.equal([
      {
        sku: sku('p1005'),
        quantity: 1,
        unitPricePence: 1005,
        vatRateBasisPoints: 2000,
        itemName: 'Pricing edge test kit p1005',
      },
    ]);
  });

  it('charges £4.95 shipping at £74.99 and none at £75.00', async () => {
    expect(await priced(79.94, [{ sku: sku('p7499'), quantity: 1 }])).to.include({
      goods: 74.99,
      shipping: 4.95,
      total: 79.94,
    });
    expect(await priced(75.0, [{ sku: sku('p7500'), quantity: 1 }])).to.include({ goods: 75, shipping: 0, total: 75 });
  });

  it('applies the £75 threshold after the discount', async () => {
    // 83.33 less 10% (8.333 → 8.33) = 75.00: free shipping. 83.32 less 8.33 (8.332 → 8.33) = 74.99: £4.95.
    expect(await priced(75.0, [{ sku: sku('p8333'), quantity: 1 }], { promo_code: 'WELCOME10' })).to.include({
      goods: 83.33,
      discount: 8.33,
      shipping: 0,
      total: 75,
    });
    expect(await priced(79.94, [{ sku: sku('p8332'), quantity: 1 }], { promo_code: 'WELCOME10' })).to.include({
      goods: 83.32,
      discount: 8.33,
      shipping: 4.95,
      total: 79.94,
    });
  });

  it('rounds the discount half up, and takes promo codes in any case', async () => {
    // 10% of 10.05 is 1.005 → 1.01; of 10.04 is 1.004 → 1.00.
    expect(await priced(13.99, [{ sku: sku('p1005'), quantity: 1 }], { promo_code: 'welcome10' })).to.include({
      goods: 10.05,
      discount: 1.01,
      total: 13.99,
    });
    expect(await priced(13.99, [{ sku: sku('p1004'), quantity: 1 }], { promo_code: ' Welcome10 ' })).to.include({
      goods: 10.04,
      discount: 1.0,
      total: 13.99,
    });
    // 3 × 10.05 = 30.15, 10% is 3.015 → 3.02.
    expect(await priced(32.08, [{ sku: sku('p1005'), quantity: 3 }], { promo_code: 'WELCOME10' })).to.include({
      goods: 30.15,
      discount: 3.02,
      total: 32.08,
    });
  });

  it('hands the provider exactly the server total', async () => {
    const result = await expectCheckout(
      stack.client(),
      checkoutBody(75.0, [{ sku: sku('p8333'), quantity: 1 }], { promo_code: 'WELCOME10' }),
    );
    const provider = await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts/${result.id}`, {
      headers: { authorization: 'Bearer sandbox_key' },
    });
    expect(await provider.json()).to.include({ amount: 75, currency: 'GBP', merchant_code: 'MSTOREFRONT' });
  });

  it('answers 409 out_of_stock naming the SKUs, and keeps no order', async () => {
    const body = checkoutBody(40.95, [{ sku: 'ipamorelin-10mg', quantity: 1 }]);
    const res = await createCheckout(stack.client(), body);
    expect(res.status, res.text).to.equal(409);
    expect(res.body.error).to.equal('out_of_stock');
    expect(res.body.detail).to.contain('ipamorelin-10mg');
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(0);
  });

  it('links the order to the account when the session cookie comes along', async () => {
    const client = stack.client();
    await signUp(client);
    const body = checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
    await expectCheckout(client, body);
    const me = await client.get<{ user: { profile: { id: string } } }>('/api/auth/me');
    expect((await stack.checkout!.store.findByReference(body.checkout_reference))!.accountId).to.equal(
      me.body.user.profile.id,
    );
  });

  it('serves a checkout without a session, and treats a stale cookie as none', async () => {
    const client = stack.client();
    client.setCookie('svc_sess', 'A'.repeat(43));
    const body = checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
    await expectCheckout(client, body);
    expect((await stack.checkout!.store.findByReference(body.checkout_reference))!.accountId).to.equal(undefined);
  });
});

describe('gateway: GET /api/validate-promo', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  const validate = (code: string, client = stack.client()) =>
    client.get<{ valid: boolean; code?: string; discount?: number }>(
      `/api/validate-promo?code=${encodeURIComponent(code)}`,
    );

  it('answers WELCOME10 valid with its fraction, in any case', async () => {
    for (const code of ['WELCOME10', 'welcome10', 'WeLcOmE10']) {
      const res = await validate(code);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ valid: true, code: 'WELCOME10', discount: 0.1 });
    }
  });

  it('answers an expired or unknown code invalid', async () => {
    expect((await validate('SPRING25')).body).to.deep.equal({ valid: false, code: 'SPRING25' });
    expect((await validate('NOSUCHCODE')).body).to.include({ valid: false });
  });

  it('answers 400 without a code', async () => {
    const res = await stack.client().get<{ error: string; detail: string }>('/api/validate-promo');
    expect(res.status).to.equal(400);
    expect(res.body.detail).to.contain('code');
  });

  it('never consumes a code: validating it does not use it up', async () => {
    await stack.checkout!.store.savePromoCodes([
      { code: 'ONCEONLY', discountBasisPoints: 500, activeFrom: 0, maxRedemptions: 1 },
    ]);
    for (let i = 0; i < 3; i++)
      expect((await validate('onceonly')).body).to.deep.equal({ valid: true, code: 'ONCEONLY', discount: 0.05 });
    expect(await countRows(stack, 'promo_redemptions', { code: 'ONCEONLY' })).to.equal(0);
  });

  it('answers a code that is not yet active invalid', async () => {
    await stack.checkout!.store.savePromoCodes([
      { code: 'LATER', discountBasisPoints: 500, activeFrom: Date.now() + 86_400_000 },
    ]);
    expect((await validate('LATER')).body.valid).to.equal(false);
  });

  it('answers 400 to a code longer than 64 characters', async () => {
    expect((await validate('X'.repeat(65))).status).to.equal(400);
  });

  it('answers 405 to other methods', async () => {
    expect((await stack.client().post('/api/validate-promo', {})).status).to.equal(405);
  });
});
