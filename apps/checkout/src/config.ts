import { readMailConfig, type MailConfig } from '@storefront/outbox';
import { ConfigError, type EnvReader } from '@storefront/config';
import { readGrpcServiceConfig, type GrpcServiceConfig } from '@storefront/lifecycle';
import { DEFAULT_MERCHANT_CODE, SANDBOX_API_KEY } from '@storefront/formats';
import { readWindowLimit } from '@storefront/rate-limit';
import { callersOf } from '@storefront/grpc';
import { readDispatchCalendar, type DispatchCalendar } from '@storefront/dispatch-calendar';
import {
  readServiceTokenPrivateKey,
  readServiceTokenPublicKeys,
  type ServicePublicKeys,
} from '@storefront/service-token';
import { CHECKOUT_ACCESS } from './access';
import type { PollPolicy } from './domain/confirmation';
import { PROVIDER_NAMES, type ProviderName } from './domain/payment-provider';
import type { AbuseLimits } from './limits';
import type { OrderIntakeLimits } from './domain/order-intake';
import { DEFAULT_ORDER_NUMBER_PREFIX, ORDER_NUMBER_PREFIX_PATTERN, OrderNumbers } from './domain/order-number';

/** Where and how to reach a provider that speaks SumUp's checkout API. */
export interface ProviderConfig {
  name: ProviderName;
  apiBase: string;
  apiKey: string;
  merchantCode: string;
}

export interface CheckoutConfig extends GrpcServiceConfig {
  inventoryAddress: string;
  loyaltyAddress: string;
  provider: ProviderConfig;
  /** Bounds one provider call, so a hung provider becomes a 502 and not a hung request. */
  providerTimeoutMs: number;
  /**
   * Origin of the public gateway; the default webhook is `<publicBaseUrl>/api/payments/events`, and order mails link to
   * `<publicBaseUrl>/orders/<reference>`.
   */
  publicBaseUrl: string;
  /** How order numbers read (ORDER_NUMBER_PREFIX, decision 1285). */
  orderNumbers: OrderNumbers;
  mail: MailConfig;
  /** The storefront pages' origin; with publicBaseUrl and allowedOrigins, where a payer may be sent back to. */
  storefrontOrigin?: string;
  /** More origins (scheme://host[:port]) of this shop. */
  allowedOrigins: string[];
  reconcileIntervalMs: number;
  /** When open orders are read from the provider besides its notifications, and how many a second at most. */
  pollPolicy: PollPolicy;
  /** How long promo code definitions are used before the store is read again (0: every check). */
  promoCacheMs: number;
  /** Seed the demo promo codes into an empty store (the embedded default). */
  seedDemoData: boolean;
  /** Rate-limit counters live in Redis when set, otherwise in checkout's SQL store. */
  redisUrl?: string;
  /** Prefix of every Redis key, so several deployments (or test runs) can share a server. */
  redisKeyPrefix: string;
  limits: AbuseLimits;
  /** How long an unpaid order's stock hold is firm after it was placed; then it yields to a buyer short of units. */
  holdFirmMs: number;
  /** New orders placed at once by one process, and how long one waits its turn before a 503 (decision 1348). */
  orderIntake: OrderIntakeLimits;
  /** The cut-off and bank holidays a paid order's dispatch and delivery dates follow (docs/decisions/1170). */
  dispatchCalendar: DispatchCalendar;
  /** A guest order's delivery details are erased this long after it was placed (decision 1301). */
  guestDeliveryRetentionMs: number;
  /** Variables set in the environment that no longer do anything; named in a log line at start. */
  ignoredVariables: string[];
}

/** Variables checkout once read and now ignores, so a deployment that still sets them starts as before. */
const RETIRED_VARIABLES = [
  // The cap on what all open orders together hold (decision 0857), replaced by holds that yield (decision 1082).
  'OPEN_ORDERS_SKU_SHARE_PERCENT',
];

export function readCheckoutConfig(env: EnvReader): CheckoutConfig {
  const service = readGrpcServiceConfig(env, 'checkout', '127.0.0.1:50053');
  return {
    ...service,
    inventoryAddress: env.grpcTarget('INVENTORY_ADDR', '127.0.0.1:50054'),
    loyaltyAddress: env.grpcTarget('LOYALTY_ADDR', '127.0.0.1:50052'),
    ...readProviderSettings(env),
    publicBaseUrl: readPublicBaseUrl(env),
    orderNumbers: readOrderNumbers(env),
    mail: readMailConfig(env, service.dataDir),
    storefrontOrigin: env.optionalUrl('STOREFRONT_ORIGIN'),
    allowedOrigins: env.origins('ALLOWED_ORIGINS'),
    guestDeliveryRetentionMs:
      env.int('GUEST_DELIVERY_RETENTION_DAYS', 730, { min: 30, max: 6 * 366 }) * 24 * 3600 * 1000,
    reconcileIntervalMs: env.int('RECONCILE_INTERVAL_MS', 2_000, { min: 100, max: 3_600_000 }),
    pollPolicy: {
      firstCheckMs: env.int('RECONCILE_FIRST_CHECK_MS', 30_000, { min: 100, max: 3_600_000 }),
      maxCheckIntervalMs: env.int('RECONCILE_MAX_CHECK_INTERVAL_MS', 300_000, { min: 100, max: 3_600_000 }),
      readsPerSecond: env.int('RECONCILE_READS_PER_SECOND', 50, { min: 1, max: 10_000 }),
    },
    promoCacheMs: env.int('PROMO_CACHE_MS', 2_000, { min: 0, max: 300_000 }),
    seedDemoData: env.oneOf('SEED_DEMO_DATA', ['true', 'false'], service.store.mysqlUrl ? 'false' : 'true') === 'true',
    redisUrl: env.optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.string('REDIS_KEY_PREFIX', 'storefront:checkout:'),
    limits: {
      checkoutsPerAddress: readWindowLimit(env, 'CHECKOUTS_PER_ADDRESS', 20, 60),
      checkoutsPerAccount: readWindowLimit(env, 'CHECKOUTS_PER_ACCOUNT', 20, 60),
      openOrdersPerAddress: env.int('OPEN_ORDERS_PER_ADDRESS_MAX', 5, { min: 1, max: 10_000 }),
      openOrdersPerAccount: env.int('OPEN_ORDERS_PER_ACCOUNT_MAX', 5, { min: 1, max: 10_000 }),
      stockSharePercent: env.int('OPEN_ORDERS_STOCK_SHARE_PERCENT', 50, { min: 1, max: 100 }),
      promoChecksPerAddress: readWindowLimit(env, 'PROMO_CHECKS_PER_ADDRESS', 30, 60),
      orderLookupsPerAddress: readWindowLimit(env, 'ORDER_LOOKUPS_PER_ADDRESS', 120, 60),
      paymentEventsPerAddress: readWindowLimit(env, 'PAYMENT_EVENTS_PER_ADDRESS', 300, 60),
      paymentEventReadWindowSeconds: env.int('PAYMENT_EVENT_READ_WINDOW_SECONDS', 5, { min: 1, max: 300 }),
    },
    holdFirmMs: env.int('HOLD_FIRM_SECONDS', 300, { min: 30, max: 1800 }) * 1000,
    orderIntake: {
      atOnce: env.int('NEW_ORDERS_AT_ONCE', 4, { min: 1, max: 1_000 }),
      maxWaitMs: env.int('NEW_ORDER_WAIT_MS', 500, { min: 10, max: 60_000 }),
    },
    dispatchCalendar: readDispatchCalendar(env),
    ignoredVariables: RETIRED_VARIABLES.filter((name) => env.optional(name) !== undefined),
  };
}

/** Keys only serving needs, read apart from the rest so `migrate` needs none of them. */
export interface CheckoutServeKeys {
  /** Public keys of the services checkout's access table admits. */
  servicePublicKeys: ServicePublicKeys;
  /** Signs checkout's service token on its calls to inventory and loyalty. */
  serviceTokenPrivateKey: string;
}

export function readCheckoutServeKeys(env: EnvReader): CheckoutServeKeys {
  return {
    servicePublicKeys: readServiceTokenPublicKeys(env, callersOf(CHECKOUT_ACCESS)),
    serviceTokenPrivateKey: readServiceTokenPrivateKey(env),
  };
}

/** Where mails link to; the ops command line reads it too, for the mails it queues. */
export function readPublicBaseUrl(env: EnvReader): string {
  return env.url('PUBLIC_BASE_URL', 'http://localhost:8080');
}

/** The prefix order numbers are read with (`SRS-10234`); the ops command line reads it too, for the mails it queues. */
export function readOrderNumbers(env: EnvReader): OrderNumbers {
  const prefix = env.string('ORDER_NUMBER_PREFIX', DEFAULT_ORDER_NUMBER_PREFIX);
  if (!ORDER_NUMBER_PREFIX_PATTERN.test(prefix))
    throw new ConfigError(`ORDER_NUMBER_PREFIX must be 2 to 6 capital letters (A-Z), not ${JSON.stringify(prefix)}`);
  return new OrderNumbers(prefix);
}

/** The provider and how long one call to it may take; the ops command line reads these too. */
export function readProviderSettings(env: EnvReader): Pick<CheckoutConfig, 'provider' | 'providerTimeoutMs'> {
  return {
    provider: readProviderConfig(env),
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
  };
}

/**
 * The sandbox has working defaults (its local URL, its demo key and merchant code); real SumUp
 * needs its key and merchant code spelled out, and talks to api.sumup.com unless told otherwise.
 */
function readProviderConfig(env: EnvReader): ProviderConfig {
  const name = env.oneOf('PAYMENT_PROVIDER', PROVIDER_NAMES, 'sandbox');
  if (name === 'sandbox') {
    const sandboxPort = env.int('SANDBOX_PORT', 8090, { min: 0, max: 65535 });
    return {
      name,
      apiBase: env.url('SUMUP_API_BASE', `http://127.0.0.1:${sandboxPort}`),
      apiKey: env.string('SUMUP_API_KEY', SANDBOX_API_KEY),
      merchantCode: env.string('SUMUP_MERCHANT_CODE', DEFAULT_MERCHANT_CODE),
    };
  }
  const apiKey = env.optional('SUMUP_API_KEY');
  if (!apiKey) throw new ConfigError('SUMUP_API_KEY is required when PAYMENT_PROVIDER is sumup');
  const merchantCode = env.optional('SUMUP_MERCHANT_CODE');
  if (!merchantCode) throw new ConfigError('SUMUP_MERCHANT_CODE is required when PAYMENT_PROVIDER is sumup');
  return { name, apiBase: env.url('SUMUP_API_BASE', 'https://api.sumup.com', ['https:']), apiKey, merchantCode };
}
