/**
 * Starts the platform in-process for tests: each service's gRPC server on an ephemeral port
 * with this run's stores, then the gateway pointed at them. Services are configured through
 * their real config readers, so tests exercise the same code paths as production.
 */
import { EnvReader, type Env } from '@storefront/config';
import { generateCallerKeyPair, type CallerKeyPair } from '@storefront/caller-token';
import { readInventoryConfig, readInventoryServeKeys, startInventoryServer, type InventoryServer } from '@storefront/inventory';
import { readIdentityConfig, readIdentityServeKeys, startIdentityServer, type IdentityServer } from '@storefront/identity';
import { readLoyaltyConfig, readLoyaltyServeKeys, startLoyaltyServer, type LoyaltyServer } from '@storefront/loyalty';
import { readCheckoutConfig, readCheckoutServeKeys, startCheckoutServer, type CheckoutServer } from '@storefront/checkout';
import { readPaymentSandboxConfig, startPaymentSandbox, type PaymentSandbox } from '@storefront/payment-sandbox';
import { readGatewayConfig, startGateway, type GatewayServer } from '@storefront/gateway';
import { HttpClient, provisionStores, testServiceTokenEnv, type TestStores } from '@storefront/testing';

export type ServiceName = 'identity' | 'loyalty' | 'inventory' | 'checkout' | 'payment-sandbox';
const ALL_SERVICES: ServiceName[] = ['identity', 'loyalty', 'inventory', 'checkout', 'payment-sandbox'];

export interface StackOptions {
  /** Services to start; the default is all of them. The gateway always starts. */
  services?: ServiceName[];
  /** Extra environment for every app (e.g. RECONCILE_INTERVAL_MS). */
  env?: Env;
  /** Reuse stores from an earlier stack, e.g. to test a restart on the same data. */
  stores?: TestStores;
  /** Epoch milliseconds for apps that take a clock (identity, checkout, the gateway's session cache), so tests can move time. */
  now?: () => number;
}

export interface Stack {
  stores: TestStores;
  keys: CallerKeyPair;
  /** The environment every app was configured with (stores, keys, addresses); each app adds its own service-token key. */
  env: Env;
  gateway: GatewayServer;
  identity?: IdentityServer;
  loyalty?: LoyaltyServer;
  inventory?: InventoryServer;
  checkout?: CheckoutServer;
  paymentSandbox?: PaymentSandbox;
  /** A fresh client with its own cookie jar. */
  client(): HttpClient;
  /** Stops everything; cleans the stores unless they were passed in. */
  stop(): Promise<void>;
}

// The discard port: connections are refused, like a service that is down.
const UNREACHABLE = '127.0.0.1:9';
let sharedKeys: Promise<CallerKeyPair> | undefined;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const services = new Set<ServiceName>(options.services ?? ALL_SERVICES);
  const stores = options.stores ?? (await provisionStores());
  sharedKeys ??= generateCallerKeyPair();
  const keys = await sharedKeys;
  const env: Env = {
    DATA_DIR: stores.dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BUILD_ID: 'test-build',
    SEED_DEMO_DATA: 'true',
    CALLER_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
    CALLER_TOKEN_PRIVATE_KEY: keys.privateKeyPem,
    ...testServiceTokenEnv(),
    ...(stores.redisUrl ? { REDIS_URL: stores.redisUrl } : {}),
    REDIS_KEY_PREFIX: stores.redisPrefix,
    IDENTITY_ADDR: UNREACHABLE,
    LOYALTY_ADDR: UNREACHABLE,
    CHECKOUT_ADDR: UNREACHABLE,
    INVENTORY_ADDR: UNREACHABLE,
    ...options.env,
  };
  const configFor = (service: ServiceName | 'gateway', bindAddress: Record<string, string> = {}): EnvReader => {
    const mysqlUrl = stores.mysqlUrlFor(service);
    const ownKey = service === 'gateway' || service === 'checkout' ? testServiceTokenEnv(service) : {};
    return new EnvReader({ ...env, ...ownKey, ...(mysqlUrl ? { [`${service.toUpperCase()}_MYSQL_URL`]: mysqlUrl } : {}), ...bindAddress });
  };

  const stack: Partial<Stack> = { stores, keys, env };
  const stoppers: Array<() => Promise<void>> = [];
  try {
    if (services.has('payment-sandbox')) {
      const sandbox = await startPaymentSandbox(readPaymentSandboxConfig(configFor('payment-sandbox', { SANDBOX_PORT: '0' })));
      stack.paymentSandbox = sandbox;
      stoppers.unshift(() => sandbox.stop());
      env.SUMUP_API_BASE = sandbox.url;
    }
    if (services.has('inventory')) {
      const config = configFor('inventory', { INVENTORY_ADDR: '127.0.0.1:0' });
      const inventory = await startInventoryServer(readInventoryConfig(config), { migrate: true, ...readInventoryServeKeys(config) });
      stack.inventory = inventory;
      stoppers.unshift(() => inventory.stop());
      env.INVENTORY_ADDR = inventory.address;
    }
    if (services.has('loyalty')) {
      const config = configFor('loyalty', { LOYALTY_ADDR: '127.0.0.1:0' });
      const loyalty = await startLoyaltyServer(readLoyaltyConfig(config), { migrate: true, ...readLoyaltyServeKeys(config) });
      stack.loyalty = loyalty;
      stoppers.unshift(() => loyalty.stop());
      env.LOYALTY_ADDR = loyalty.address;
    }
    if (services.has('identity')) {
      const config = configFor('identity', { IDENTITY_ADDR: '127.0.0.1:0' });
      const identity = await startIdentityServer(readIdentityConfig(config), { migrate: true, now: options.now, ...readIdentityServeKeys(config) });
      stack.identity = identity;
      stoppers.unshift(() => identity.stop());
      env.IDENTITY_ADDR = identity.address;
    }
    if (services.has('checkout')) {
      const config = configFor('checkout', { CHECKOUT_ADDR: '127.0.0.1:0' });
      const checkout = await startCheckoutServer(readCheckoutConfig(config), { migrate: true, now: options.now, ...readCheckoutServeKeys(config) });
      stack.checkout = checkout;
      stoppers.unshift(() => checkout.stop());
      env.CHECKOUT_ADDR = checkout.address;
    }
    const gateway = await startGateway(readGatewayConfig(configFor('gateway', { PORT: '0' })), { now: options.now });
    stack.gateway = gateway;
    stoppers.unshift(() => gateway.stop());
  } catch (error) {
    for (const stop of stoppers) await stop().catch(() => undefined);
    if (!options.stores) await stores.cleanup();
    throw error;
  }
  return {
    ...(stack as Stack),
    client: () => new HttpClient(stack.gateway!.url),
    stop: async () => {
      for (const stop of stoppers) await stop();
      if (!options.stores) await stores.cleanup();
    },
  };
}
