import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { checkout } from '@storefront/proto';
import {
  canonicalJson,
  fingerprintOf,
  shopOrigins,
  validateCheckoutRequest,
  type RequestRules,
} from '../src/domain/request';
import { normalisePromoCode, promoRefusal } from '../src/domain/promo';

const rules: RequestRules = {
  merchantCode: 'MSTOREFRONT',
  redirectOrigins: shopOrigins('https://shop.example/base/', 'https://www.shop.example', [
    'http://localhost:3000',
    'http://[::1]:3000',
    'http://dev.shop.example',
  ]),
  defaultProvider: 'sandbox',
  providers: ['sandbox'],
};

function request(overrides: Partial<checkout.CreateCheckoutRequest> = {}): checkout.CreateCheckoutRequest {
  return {
    checkoutReference: 'ref-1',
    amountPence: 5493,
    currency: 'GBP',
    merchantCode: 'MSTOREFRONT',
    items: [{ sku: 'bpc-157-5mg', quantity: 2 }],
    delivery: {
      name: 'Ada',
      email: 'ada@example.com',
      line1: '1 Road',
      city: 'London',
      postcode: 'SW1A 1AA',
      country: 'GB',
    },
    clientAddress: '198.51.100.7',
    ...overrides,
  };
}

function refusal(overrides: Partial<checkout.CreateCheckoutRequest>): AppError {
  try {
    validateCheckoutRequest(request(overrides), rules);
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).kind).to.equal('invalid_argument');
    return error as AppError;
  }
  throw new Error('the request was accepted');
}

describe('checkout request rules', () => {
  it('accepts a complete request and fills in the default provider', () => {
    expect(validateCheckoutRequest(request(), rules).provider).to.equal('sandbox');
  });

  it('refuses an amount that is not whole pence within the bound, so none reaches pricing as an inexact number', () => {
    for (const amountPence of [0, -1, 1.5, 1e17, 1e302, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Infinity]) {
      expect(refusal({ amountPence }).detail, String(amountPence)).to.contain('amount');
    }
    expect(validateCheckoutRequest(request({ amountPence: 100_000_000 }), rules).amountPence).to.equal(100_000_000);
    expect(refusal({ amountPence: 100_000_001 }).detail).to.contain('at most 1000000');
  });

  it('refuses currencies other than GBP', () => {
    expect(refusal({ currency: 'EUR' }).detail).to.contain('currency');
  });

  it('refuses another merchant code', () => {
    expect(refusal({ merchantCode: 'MOTHER' }).detail).to.contain('merchant_code');
  });

  it('refuses a request without items or without delivery', () => {
    expect(refusal({ items: [] }).detail).to.contain('items');
    expect(refusal({ delivery: undefined }).detail).to.contain('delivery');
  });

  it('refuses quantities outside 1..99 and a SKU listed twice', () => {
    expect(refusal({ items: [{ sku: 'a', quantity: 0 }] }).detail).to.contain('items[0].quantity');
    expect(refusal({ items: [{ sku: 'a', quantity: 100 }] }).detail).to.contain('items[0].quantity');
    expect(
      refusal({
        items: [
          { sku: 'a', quantity: 1 },
          { sku: 'a', quantity: 2 },
        ],
      }).detail,
    ).to.contain('items[1].sku');
  });

  it('delivers to GB only', () => {
    expect(refusal({ delivery: { ...request().delivery!, country: 'FR' } }).detail).to.contain('delivery.country');
  });

  it('refuses control characters in every delivery field, the reference and the promo code, naming the field', () => {
    for (const field of ['name', 'email', 'phone', 'line1', 'line2', 'city', 'postcode'] as const) {
      const delivery = { ...request().delivery!, [field]: 'x\r\nBcc: victim@example.com' };
      expect(refusal({ delivery }).detail, field).to.equal(
        `delivery.${field} must not contain control characters (line breaks, tabs and the like)`,
      );
    }
    expect(refusal({ checkoutReference: 'order\n1' }).detail).to.contain('checkout_reference must not contain control');
    expect(refusal({ promoCode: 'SAVE\u0085TEN' }).detail).to.contain('promo_code must not contain control');
  });

  it('refuses a provider this deployment does not have', () => {
    expect(refusal({ provider: 'sumup' }).detail).to.contain('provider');
    expect(refusal({ provider: 'paypal' }).detail).to.contain('provider');
  });

  it("accepts a redirect_url on any of the shop's origins, over https or on localhost over http", () => {
    for (const redirectUrl of [
      'https://shop.example/thanks?order=1',
      'https://www.shop.example/',
      'http://localhost:3000/done',
      'http://[::1]:3000/done',
    ]) {
      expect(validateCheckoutRequest(request({ redirectUrl }), rules).redirectUrl).to.equal(redirectUrl);
    }
  });

  it('refuses a redirect_url off the shop, over plain http off localhost, with credentials or not a URL', () => {
    for (const redirectUrl of [
      'https://evil.example/thanks',
      'https://shop.example.evil.example/',
      'https://shop.example:8443/thanks',
      'http://shop.example/thanks',
      'http://dev.shop.example/thanks',
      'http://localhost:4000/done',
      'https://user:pass@shop.example/',
      'javascript:alert(1)',
      '//shop.example/thanks',
    ]) {
      const error = refusal({ redirectUrl });
      expect(error.code, redirectUrl).to.equal('invalid_redirect_url');
      expect(error.detail, redirectUrl).to.contain('redirect_url');
    }
  });

  it('lists each shop origin once', () => {
    expect(shopOrigins('http://localhost:8080', 'http://localhost:8080/', ['http://localhost:8080'])).to.deep.equal([
      'http://localhost:8080',
    ]);
  });

  it('refuses a reference longer than 90 characters or blank', () => {
    expect(refusal({ checkoutReference: 'x'.repeat(91) }).detail).to.contain('checkout_reference');
    expect(refusal({ checkoutReference: '  ' }).detail).to.contain('checkout_reference');
  });
});

describe('checkout request fingerprint', () => {
  const validated = (overrides: Partial<checkout.CreateCheckoutRequest> = {}) =>
    validateCheckoutRequest(request(overrides), rules);

  it('is the same for the same request, whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).to.equal(canonicalJson({ a: [{ c: 3, d: 2 }], b: 1 }));
    expect(fingerprintOf(validated(), 'u1')).to.equal(fingerprintOf(validated(), 'u1'));
  });

  it('treats an absent optional field like one never sent', () => {
    expect(fingerprintOf(validated({ description: undefined }), undefined)).to.equal(
      fingerprintOf(validated(), undefined),
    );
  });

  it('does not depend on the client address: a replay from another network is the same request', () => {
    expect(fingerprintOf(validated({ clientAddress: '2001:db8::1' }), 'u1')).to.equal(fingerprintOf(validated(), 'u1'));
  });

  it('is the fingerprint orders were saved with while the amount travelled in pounds', () => {
    expect(fingerprintOf(validated(), 'u1')).to.equal(
      '455a4b150a6e7d94eef17ef38427dcc940e573691771960f3099690e726369d7',
    );
  });

  it('differs when any part of the request or the account differs', () => {
    const base = fingerprintOf(validated(), 'u1');
    expect(fingerprintOf(validated({ amountPence: 5494 }), 'u1')).to.not.equal(base);
    expect(fingerprintOf(validated({ items: [{ sku: 'bpc-157-5mg', quantity: 3 }] }), 'u1')).to.not.equal(base);
    expect(fingerprintOf(validated({ description: 'gift' }), 'u1')).to.not.equal(base);
    expect(fingerprintOf(validated(), 'u2')).to.not.equal(base);
    expect(fingerprintOf(validated(), undefined)).to.not.equal(base);
  });
});

describe('promo code rules', () => {
  const promo = { code: 'X', discountBasisPoints: 1000, activeFrom: 1000, activeUntil: 2000, maxRedemptions: 2 };

  it('matches codes case-insensitively and without surrounding blanks', () => {
    expect(normalisePromoCode('  welcome10 ')).to.equal('WELCOME10');
  });

  const usage = (redeemed: number, held = 0) => ({ redeemed, held });

  it('is usable only inside its window and under its redemption limit', () => {
    expect(promoRefusal(promo, 999, usage(0))).to.equal('inactive');
    expect(promoRefusal(promo, 1000, usage(0))).to.equal(undefined);
    expect(promoRefusal(promo, 1999, usage(1))).to.equal(undefined);
    expect(promoRefusal(promo, 2000, usage(0))).to.equal('inactive');
    expect(promoRefusal(promo, 1500, usage(2))).to.equal('used_up');
    expect(
      promoRefusal({ code: 'Y', discountBasisPoints: 1000, activeFrom: 0 }, Number.MAX_SAFE_INTEGER, usage(1e9, 1e9)),
    ).to.equal(undefined);
  });

  it('counts open orders holding the code against its limit, after the paid ones', () => {
    expect(promoRefusal(promo, 1500, usage(1, 0))).to.equal(undefined);
    expect(promoRefusal(promo, 1500, usage(1, 1))).to.equal('held');
    expect(promoRefusal(promo, 1500, usage(0, 2))).to.equal('held');
    expect(promoRefusal(promo, 1500, usage(2, 1))).to.equal('used_up');
  });
});
