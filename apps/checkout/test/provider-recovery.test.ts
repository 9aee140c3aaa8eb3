/**
 * The provider adapter after a 409 DUPLICATED_CHECKOUT: it takes over the checkout an earlier
 * attempt left at the provider only when that checkout is the one this order would have made.
 */
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { EnvReader } from '@storefront/config';
import { AppError } from '@storefront/errors';
import { createLogger } from '@storefront/logging';
import { readPaymentSandboxConfig, startPaymentSandbox, type PaymentSandbox } from '@storefront/payment-sandbox';
import { rejection } from '@storefront/testing';
import { SumUpApiProvider } from '../src/providers/sumup';
import type { NewProviderCheckout } from '../src/domain/payment-provider';

const API_KEY = 'sandbox_key';
const MERCHANT = 'MSTOREFRONT';

describe('checkout: taking over the provider checkout of an earlier attempt', () => {
  let sandbox: PaymentSandbox;
  let provider: SumUpApiProvider;
  const lines: string[] = [];
  before(async () => {
    sandbox = await startPaymentSandbox(
      readPaymentSandboxConfig(new EnvReader({ SANDBOX_PORT: '0', LOG_LEVEL: 'silent' })),
    );
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    provider = new SumUpApiProvider(
      { name: 'sandbox', apiBase: sandbox.url, apiKey: API_KEY, merchantCode: MERCHANT },
      2000,
      createLogger('checkout', 'info', sink),
    );
  });
  after(async () => sandbox?.stop());
  beforeEach(() => {
    lines.length = 0;
    sandbox.control.reset();
  });

  const wanted = (): NewProviderCheckout => ({
    reference: `order-${randomBytes(6).toString('hex')}`,
    amountPence: 5494,
    currency: 'GBP',
    merchantCode: MERCHANT,
    returnUrl: 'http://127.0.0.1:9/api/payments/events',
    validUntil: new Date(Date.now() + 30 * 60 * 1000),
  });
  /** An earlier checkout for the reference, as the provider holds it. */
  const leftBehind = (
    checkout: NewProviderCheckout,
    overrides: { amount?: number; currency?: string; merchant_code?: string } = {},
    status?: 'PENDING' | 'PAID' | 'FAILED' | 'EXPIRED',
  ) =>
    sandbox.prepareCheckout(
      {
        checkout_reference: checkout.reference,
        amount: checkout.amountPence / 100,
        currency: checkout.currency,
        merchant_code: checkout.merchantCode,
        ...overrides,
      },
      status,
    );
  const errorLines = () =>
    lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.level === 'error');

  it('takes over a PENDING checkout of the same amount, currency and merchant', async () => {
    const checkout = wanted();
    const earlier = leftBehind(checkout);
    const adopted = await provider.createCheckout(checkout);
    expect(adopted).to.include({ id: earlier.id, status: 'PENDING', amountPence: 5494, currency: 'GBP' });
    expect(errorLines()).to.be.empty;
  });

  const refusals: Array<[string, (checkout: NewProviderCheckout) => void, string]> = [
    ['PAID', (c) => leftBehind(c, {}, 'PAID'), 'it is PAID, not PENDING'],
    ['FAILED', (c) => leftBehind(c, {}, 'FAILED'), 'it is FAILED, not PENDING'],
    ['EXPIRED', (c) => leftBehind(c, {}, 'EXPIRED'), 'it is EXPIRED, not PENDING'],
    ['of another amount', (c) => leftBehind(c, { amount: 1 }), 'it is for 1.00 GBP, not 54.94 GBP'],
    ['in another currency', (c) => leftBehind(c, { currency: 'EUR' }), 'it is for 54.94 EUR, not 54.94 GBP'],
    [
      'for another merchant',
      (c) => leftBehind(c, { merchant_code: 'MOTHER' }),
      'it is for merchant MOTHER, not MSTOREFRONT',
    ],
  ];
  for (const [label, prepare, reason] of refusals) {
    it(`refuses a checkout that is ${label} with a 502 naming why, and logs it for operators`, async () => {
      const checkout = wanted();
      prepare(checkout);
      const error = await rejection(provider.createCheckout(checkout));
      expect(error)
        .to.be.instanceOf(AppError)
        .and.include({ kind: 'provider_unavailable', code: 'provider_checkout_mismatch' });
      expect(error.detail).to.contain(checkout.reference).and.contain(reason);
      const [logged, ...more] = errorLines();
      expect(more).to.be.empty;
      expect(logged).to.include({ reference: checkout.reference, mismatch: reason });
      expect(lines.join('\n')).to.not.contain(API_KEY);
    });
  }

  it('answers 502 when the provider reports a duplicate it then cannot list, and logs it', async () => {
    const checkout = wanted();
    leftBehind(checkout);
    sandbox.control.setBehaviour('unlisted');
    const error = await rejection(provider.createCheckout(checkout));
    expect(error).to.include({ kind: 'provider_unavailable', code: 'provider_unavailable' });
    expect(error.detail).to.contain(checkout.reference).and.contain('could not find');
    expect(errorLines().map((record) => record.reference)).to.deep.equal([checkout.reference]);
    expect(lines.join('\n')).to.not.contain(API_KEY);
  });
});
