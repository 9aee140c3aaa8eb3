import { ConfigError, readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { readStoreConfig, type StoreConfig } from '@storefront/db';
import { callersOf } from '@storefront/grpc';
import { readServiceTokenPrivateKey, readServiceTokenPublicKeys, type ServicePublicKeys } from '@storefront/service-token';
import { CHECKOUT_ACCESS } from './access';

export const PROVIDER_NAMES = ['sandbox', 'sumup'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Where and how to reach a provider that speaks SumUp's checkout API. */
export interface ProviderConfig {
  name: ProviderName;
  apiBase: string;
  apiKey: string;
  merchantCode: string;
}

export interface CheckoutConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  callerTokenPublicKey: string;
  inventoryAddress: string;
  loyaltyAddress: string;
  provider: ProviderConfig;
  /** Bounds one provider call, so a hung provider becomes a 502 and not a hung request. */
  providerTimeoutMs: number;
  /** Origin of the public gateway; the default webhook is `<publicBaseUrl>/api/payments/events`. */
  publicBaseUrl: string;
  reconcileIntervalMs: number;
  /** Seed the demo promo codes into an empty store (the embedded default). */
  seedDemoData: boolean;
}

/** The sandbox accepts this key unless told otherwise; it is not a secret. */
export const SANDBOX_DEFAULT_API_KEY = 'sandbox_key';
export const SANDBOX_DEFAULT_MERCHANT_CODE = 'MSTOREFRONT';

export function readCheckoutConfig(env: EnvReader): CheckoutConfig {
  const common = readCommon(env);
  const store = readStoreConfig(env, 'checkout', common);
  return {
    ...common,
    address: env.address('CHECKOUT_ADDR', '127.0.0.1:50053'),
    store,
    callerTokenPublicKey: env.string('CALLER_TOKEN_PUBLIC_KEY'),
    inventoryAddress: env.address('INVENTORY_ADDR', '127.0.0.1:50054'),
    loyaltyAddress: env.address('LOYALTY_ADDR', '127.0.0.1:50052'),
    provider: readProviderConfig(env),
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
    publicBaseUrl: env.url('PUBLIC_BASE_URL', 'http://localhost:8080'),
    reconcileIntervalMs: env.int('RECONCILE_INTERVAL_MS', 10_000, { min: 100, max: 3_600_000 }),
    seedDemoData: env.oneOf('SEED_DEMO_DATA', ['true', 'false'], store.mysqlUrl ? 'false' : 'true') === 'true',
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
      apiKey: env.string('SUMUP_API_KEY', SANDBOX_DEFAULT_API_KEY),
      merchantCode: env.string('SUMUP_MERCHANT_CODE', SANDBOX_DEFAULT_MERCHANT_CODE),
    };
  }
  const apiKey = env.optional('SUMUP_API_KEY');
  if (!apiKey) throw new ConfigError('SUMUP_API_KEY is required when PAYMENT_PROVIDER is sumup');
  const merchantCode = env.optional('SUMUP_MERCHANT_CODE');
  if (!merchantCode) throw new ConfigError('SUMUP_MERCHANT_CODE is required when PAYMENT_PROVIDER is sumup');
  return { name, apiBase: env.url('SUMUP_API_BASE', 'https://api.sumup.com', ['https:']), apiKey, merchantCode };
}
