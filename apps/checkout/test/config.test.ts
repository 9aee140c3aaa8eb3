import { expect } from 'chai';
import { ConfigError, EnvReader, type Env } from '@storefront/config';
import { readCheckoutConfig } from '../src/config';

const base: Env = { CALLER_TOKEN_PUBLIC_KEY: 'pem', DATA_DIR: '/tmp/unused' };
const read = (env: Env) => readCheckoutConfig(new EnvReader({ ...base, ...env }));

describe('checkout configuration', () => {
  it('defaults to the sandbox provider on its local port, with its demo key and merchant code', () => {
    const config = read({ SANDBOX_PORT: '18090' });
    expect(config.provider).to.deep.equal({
      name: 'sandbox',
      apiBase: 'http://127.0.0.1:18090',
      apiKey: 'sandbox_key',
      merchantCode: 'MSTOREFRONT',
    });
    expect(config).to.include({
      providerTimeoutMs: 10_000,
      reconcileIntervalMs: 2_000,
      publicBaseUrl: 'http://localhost:8080',
    });
  });

  it('needs the key and merchant code for SumUp, and defaults to its https API', () => {
    expect(() => read({ PAYMENT_PROVIDER: 'sumup', SUMUP_MERCHANT_CODE: 'MABC' })).to.throw(
      ConfigError,
      'SUMUP_API_KEY',
    );
    expect(() => read({ PAYMENT_PROVIDER: 'sumup', SUMUP_API_KEY: 'sup_sk_x' })).to.throw(
      ConfigError,
      'SUMUP_MERCHANT_CODE',
    );
    const config = read({ PAYMENT_PROVIDER: 'sumup', SUMUP_API_KEY: 'sup_sk_x', SUMUP_MERCHANT_CODE: 'MABC' });
    expect(config.provider).to.deep.equal({
      name: 'sumup',
      apiBase: 'https://api.sumup.com',
      apiKey: 'sup_sk_x',
      merchantCode: 'MABC',
    });
    expect(() =>
      read({
        PAYMENT_PROVIDER: 'sumup',
        SUMUP_API_KEY: 'k',
        SUMUP_MERCHANT_CODE: 'M',
        SUMUP_API_BASE: 'http://api.sumup.com',
      }),
    ).to.throw(ConfigError, 'SUMUP_API_BASE');
  });

  it('has abuse limits by default, each one set by its own variable', () => {
    expect(read({}).limits).to.deep.equal({
      checkoutsPerAddress: { max: 20, windowSeconds: 60 },
      checkoutsPerAccount: { max: 20, windowSeconds: 60 },
      openOrdersPerAddress: 5,
      openOrdersPerAccount: 5,
      stockSharePercent: 50,
      promoChecksPerAddress: { max: 30, windowSeconds: 60 },
      orderLookupsPerAddress: { max: 120, windowSeconds: 60 },
      paymentEventsPerAddress: { max: 300, windowSeconds: 60 },
      paymentEventReadWindowSeconds: 5,
    });
    const limits = read({
      CHECKOUTS_PER_ADDRESS_MAX: '7',
      CHECKOUTS_PER_ADDRESS_WINDOW_SECONDS: '120',
      CHECKOUTS_PER_ACCOUNT_MAX: '8',
      OPEN_ORDERS_PER_ADDRESS_MAX: '2',
      OPEN_ORDERS_PER_ACCOUNT_MAX: '3',
      OPEN_ORDERS_STOCK_SHARE_PERCENT: '25',
      PROMO_CHECKS_PER_ADDRESS_MAX: '9',
      ORDER_LOOKUPS_PER_ADDRESS_WINDOW_SECONDS: '30',
    }).limits;
    expect(limits).to.deep.equal({
      checkoutsPerAddress: { max: 7, windowSeconds: 120 },
      checkoutsPerAccount: { max: 8, windowSeconds: 60 },
      openOrdersPerAddress: 2,
      openOrdersPerAccount: 3,
      stockSharePercent: 25,
      promoChecksPerAddress: { max: 9, windowSeconds: 60 },
      orderLookupsPerAddress: { max: 120, windowSeconds: 30 },
      paymentEventsPerAddress: { max: 300, windowSeconds: 60 },
      paymentEventReadWindowSeconds: 5,
    });
    expect(() => read({ OPEN_ORDERS_STOCK_SHARE_PERCENT: '0' })).to.throw(
      ConfigError,
      'OPEN_ORDERS_STOCK_SHARE_PERCENT',
    );
    expect(() => read({ CHECKOUTS_PER_ACCOUNT_MAX: 'many' })).to.throw(ConfigError, 'CHECKOUTS_PER_ACCOUNT_MAX');
  });

  it('reads order numbers with the prefix SRS, or ORDER_NUMBER_PREFIX (2 to 6 capital letters)', () => {
    expect(read({}).orderNumbers.format(10001)).to.equal('SRS-10001');
    const shop = read({ ORDER_NUMBER_PREFIX: 'LAB' }).orderNumbers;
    expect(shop.format(10234)).to.equal('LAB-10234');
    expect(shop.parse(' lab-10234 ')).to.equal(10234);
    expect(shop.parse('SRS-10234')).to.equal(undefined);
    for (const bad of ['S', 'srs', 'SRS-', 'ABCDEFG', 'SR5'])
      expect(() => read({ ORDER_NUMBER_PREFIX: bad }), bad).to.throw(ConfigError, 'ORDER_NUMBER_PREFIX');
  });

  it("keeps an unpaid order's stock hold firm for 5 minutes, or HOLD_FIRM_SECONDS (30 s to 30 min)", () => {
    expect(read({}).holdFirmMs).to.equal(300_000);
    expect(read({ HOLD_FIRM_SECONDS: '120' }).holdFirmMs).to.equal(120_000);
    expect(() => read({ HOLD_FIRM_SECONDS: '10' })).to.throw(ConfigError, 'HOLD_FIRM_SECONDS');
    expect(() => read({ HOLD_FIRM_SECONDS: '1801' })).to.throw(ConfigError, 'HOLD_FIRM_SECONDS');
  });

  it('starts with the retired OPEN_ORDERS_SKU_SHARE_PERCENT set, whatever its value, and names it ignored', () => {
    expect(read({}).ignoredVariables).to.deep.equal([]);
    for (const value of ['80', '101', 'all']) {
      const config = read({ OPEN_ORDERS_SKU_SHARE_PERCENT: value });
      expect(config.ignoredVariables).to.deep.equal(['OPEN_ORDERS_SKU_SHARE_PERCENT']);
      expect(config.limits).to.deep.equal(read({}).limits);
    }
  });

  it('reads open orders from the provider first after 30 s, backing off to 5 minutes apart, ≤ 50 a second', () => {
    expect(read({}).pollPolicy).to.deep.equal({
      firstCheckMs: 30_000,
      maxCheckIntervalMs: 300_000,
      readsPerSecond: 50,
    });
    expect(
      read({
        RECONCILE_FIRST_CHECK_MS: '1000',
        RECONCILE_MAX_CHECK_INTERVAL_MS: '5000',
        RECONCILE_READS_PER_SECOND: '7',
      }).pollPolicy,
    ).to.deep.equal({
      firstCheckMs: 1000,
      maxCheckIntervalMs: 5000,
      readsPerSecond: 7,
    });
    expect(() => read({ RECONCILE_READS_PER_SECOND: '0' })).to.throw(ConfigError, 'RECONCILE_READS_PER_SECOND');
    expect(() => read({ RECONCILE_FIRST_CHECK_MS: 'soon' })).to.throw(ConfigError, 'RECONCILE_FIRST_CHECK_MS');
  });

  it('reads the shop origins a payer may be sent back to', () => {
    const config = read({
      PUBLIC_BASE_URL: 'https://shop.example',
      STOREFRONT_ORIGIN: 'https://www.shop.example',
      ALLOWED_ORIGINS: 'https://agents.shop.example/x',
    });
    expect(config).to.deep.include({
      storefrontOrigin: 'https://www.shop.example',
      allowedOrigins: ['https://agents.shop.example'],
    });
    expect(() => read({ ALLOWED_ORIGINS: 'agents.shop.example' })).to.throw(ConfigError, 'ALLOWED_ORIGINS');
    expect(() => read({ STOREFRONT_ORIGIN: 'www.shop.example' })).to.throw(ConfigError, 'STOREFRONT_ORIGIN');
  });

  it('refuses an unknown provider and out-of-range timings with a line naming the variable', () => {
    expect(() => read({ PAYMENT_PROVIDER: 'paypal' })).to.throw(ConfigError, 'PAYMENT_PROVIDER');
    expect(() => read({ PROVIDER_TIMEOUT_MS: '0' })).to.throw(ConfigError, 'PROVIDER_TIMEOUT_MS');
    expect(() => read({ RECONCILE_INTERVAL_MS: 'soon' })).to.throw(ConfigError, 'RECONCILE_INTERVAL_MS');
  });
});
