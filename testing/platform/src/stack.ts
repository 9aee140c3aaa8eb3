/**
 * Starts the platform in the test process, in either layout: `one-process` hosts the components
 * in the platform process with the gateway (calls in-process), `split` serves each component
 * over gRPC on an ephemeral port with the gateway pointed at them. Both use this run's stores and
 * the apps' real config readers, so tests exercise the same code paths as production. The
 * layout defaults to STOREFRONT_TEST_LAYOUT, else one-process on SQLite and split on MySQL.
 */
import { EnvReader, type Env } from '@storefront/config';
import { CallerTokenSigner, generateCallerKeyPair, type CallerKeyPair } from '@storefront/caller-token';
import type { Knex } from '@storefront/db';
import type { RpcClient, ServiceBinding, ServiceDefinition } from '@storefront/grpc';
import type { ServiceName as Caller } from '@storefront/service-token';
import {
  readInventoryConfig,
  readInventoryServeKeys,
  startInventoryServer,
  type InventoryHandles,
} from '@storefront/inventory';
import {
  readIdentityConfig,
  readIdentityServeKeys,
  startIdentityServer,
  type IdentityHandles,
} from '@storefront/identity';
import { readLoyaltyConfig, readLoyaltyServeKeys, startLoyaltyServer, type LoyaltyHandles } from '@storefront/loyalty';
import {
  readCheckoutConfig,
  readCheckoutServeKeys,
  startCheckoutServer,
  type CheckoutHandles,
} from '@storefront/checkout';
import { readPaymentSandboxConfig, startPaymentSandbox, type PaymentSandbox } from '@storefront/payment-sandbox';
import { readGatewayConfig, startGateway, type GatewayServer } from '@storefront/gateway';
import { readPlatformConfig, startPlatform, type PlatformComponents } from '@storefront/platform';
import {
  HttpClient,
  clientAs,
  currentBackend,
  provisionStores,
  testServiceTokenEnv,
  type TestStores,
} from '@storefront/testing';

export type ServiceName = 'identity' | 'loyalty' | 'inventory' | 'checkout' | 'payment-sandbox';
type ComponentName = Exclude<ServiceName, 'payment-sandbox'>;
const ALL_SERVICES: ServiceName[] = ['identity', 'loyalty', 'inventory', 'checkout', 'payment-sandbox'];
const COMPONENTS: ComponentName[] = ['identity', 'loyalty', 'inventory', 'checkout'];

export type Layout = 'one-process' | 'split';

/** The layout tests run in unless they ask for one. */
export function defaultLayout(): Layout {
  const asked = process.env.STOREFRONT_TEST_LAYOUT;
  if (asked === 'one-process' || asked === 'split') return asked;
  if (asked) throw new Error(`STOREFRONT_TEST_LAYOUT must be one-process or split, got ${asked}`);
  return currentBackend() === 'sqlite' ? 'one-process' : 'split';
}

/**
 * A running component's handles and store; in the split layout also its gRPC address and its
 * own stop (to take it down in the middle of a test), in the one-process layout its bindings.
 */
export type ComponentHandle<Handles> = Handles & {
  db: Knex;
  address?: string;
  stop?(): Promise<void>;
  bindings?: ServiceBinding[];
};

export interface StackOptions {
  layout?: Layout;
  /**
   * Start another replica of this stack, on its stores and in its layout: in the split layout its
   * gateway (and the services listed, none by default) call the first stack's other components
   * and provider; in the one-process layout it hosts the first stack's components again.
   */
  replicaOf?: Stack;
  /** Services to start; the default is all of them. The gateway always starts. */
  services?: ServiceName[];
  /**
   * Extra environment for every app (e.g. RECONCILE_INTERVAL_MS). The gateway listens on PORT when
   * it is named (a test whose PUBLIC_BASE_URL must be the gateway's own), on a free port otherwise.
   */
  env?: Env;
  /** Reuse stores from an earlier stack, e.g. to test a restart on the same data. */
  stores?: TestStores;
  /**
   * Epoch milliseconds for apps that take a clock (identity, checkout, the gateway's session cache), so tests can move
   * time.
   */
  now?: () => number;
}

export interface Stack {
  layout: Layout;
  stores: TestStores;
  keys: CallerKeyPair;
  /**
   * The environment every app was configured with (stores, keys, addresses); each app adds its own service-token key.
   */
  env: Env;
  gateway: GatewayServer;
  identity?: ComponentHandle<IdentityHandles>;
  loyalty?: ComponentHandle<LoyaltyHandles>;
  inventory?: ComponentHandle<InventoryHandles>;
  checkout?: ComponentHandle<CheckoutHandles>;
  paymentSandbox?: PaymentSandbox;
  /** A fresh client with its own cookie jar. */
  client(): HttpClient;
  /**
   * A component's facade as the service `as` calls it, over the layout's transport (a customer
   * named in a call's options travels as the gateway vouches for it).
   */
  clientOf<D extends ServiceDefinition>(target: ComponentName, definition: D, as: Caller): RpcClient<D>;
  /** Stops everything; cleans the stores unless they were passed in. */
  stop(): Promise<void>;
}

// The discard port: connections are refused, like a service that is down.
const UNREACHABLE = '127.0.0.1:9';
let sharedKeys: Promise<CallerKeyPair> | undefined;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  if (options.replicaOf) return startStack(asReplicaOf(options.replicaOf, options));
  const layout = options.layout ?? defaultLayout();
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
  const mysqlUrls = (names: readonly string[]): Env =>
    Object.fromEntries(
      names.flatMap((name) => {
        const url = stores.mysqlUrlFor(name);
        return url ? [[`${name.toUpperCase()}_MYSQL_URL`, url]] : [];
      }),
    );
  const configFor = (service: ServiceName | 'gateway', bindAddress: Record<string, string> = {}): EnvReader => {
    const ownKey = service === 'gateway' || service === 'checkout' ? testServiceTokenEnv(service) : {};
    return new EnvReader({ ...env, ...ownKey, ...mysqlUrls([service]), ...bindAddress });
  };

  const stack: Partial<Stack> = { layout, stores, keys, env };
  const stoppers: Array<() => Promise<void>> = [];
  let clientOf: Stack['clientOf'];
  try {
    if (services.has('payment-sandbox')) {
      const sandbox = await startPaymentSandbox(
        readPaymentSandboxConfig(configFor('payment-sandbox', { SANDBOX_PORT: '0' })),
      );
      stack.paymentSandbox = sandbox;
      stoppers.unshift(() => sandbox.stop());
      env.SUMUP_API_BASE = sandbox.url;
    }
    if (layout === 'one-process') {
      const hosted = COMPONENTS.filter((name) => services.has(name));
      // One process hosts them all, so one service-token key signs its remote calls (to a component
      // left out), as the gateway and as checkout alike.
      const platformEnv = new EnvReader({
        ...env,
        ...testServiceTokenEnv('gateway'),
        ...mysqlUrls(hosted),
        COMPONENTS: hosted.length ? hosted.join(',') : 'none',
        PORT: env.PORT ?? '0',
      });
      const platform = await startPlatform(readPlatformConfig(platformEnv), { migrate: true, now: options.now });
      stoppers.unshift(() => platform.stop());
      stack.gateway = platform.gateway;
      Object.assign(stack, handlesOf(platform.components));
      clientOf = (target, definition, as) => {
        const component = platform.components[target];
        if (!component) throw new Error(`${target} is not running in this stack`);
        return component.client(definition, as, 20_000);
      };
    } else {
      await startSplitServices(stack, services, configFor, env, options.now, stoppers);
      const customerTokens = await CallerTokenSigner.fromPem(keys.privateKeyPem);
      clientOf = (target, definition, as) => {
        const address = stack[target]?.address;
        if (!address) throw new Error(`${target} is not running in this stack`);
        return clientAs(as, definition, target, address, 20_000, customerTokens);
      };
      const gateway = await startGateway(readGatewayConfig(configFor('gateway', { PORT: env.PORT ?? '0' })), {
        now: options.now,
      });
      stack.gateway = gateway;
      stoppers.unshift(() => gateway.stop());
    }
  } catch (error) {
    for (const stop of stoppers) await stop().catch(() => undefined);
    if (!options.stores) await stores.cleanup();
    throw error;
  }
  return {
    ...(stack as Stack),
    client: () => new HttpClient(stack.gateway!.url),
    clientOf,
    stop: async () => {
      for (const stop of stoppers) await stop();
      if (!options.stores) await stores.cleanup();
    },
  };
}

/**
 * The environment of a platform ops command run beside the stack, as an operator runs one beside the shop: in one
 * process it opens the components the stack runs, on their stores; split, it reaches them over gRPC as the gateway.
 */
export function platformOpsEnv(stack: Stack): Env {
  const running = COMPONENTS.filter((name) => stack[name]);
  const hosted: Env =
    stack.layout === 'one-process'
      ? {
          COMPONENTS: running.join(',') || 'none',
          ...Object.fromEntries(
            running.flatMap((name) => {
              const url = stack.stores.mysqlUrlFor(name);
              return url ? [[`${name.toUpperCase()}_MYSQL_URL`, url]] : [];
            }),
          ),
        }
      : {
          COMPONENTS: 'none',
          ...Object.fromEntries(running.map((name) => [`${name.toUpperCase()}_ADDR`, stack[name]!.address!])),
        };
  return { ...stack.env, ...testServiceTokenEnv('gateway'), ...hosted };
}

function asReplicaOf(first: Stack, { replicaOf: _, services, env, ...options }: StackOptions): StackOptions {
  const running = COMPONENTS.filter((name) => first[name]);
  const elsewhere =
    first.layout === 'split'
      ? Object.fromEntries(
          running
            .filter((name) => !services?.includes(name))
            .map((name) => [`${name.toUpperCase()}_ADDR`, first[name]!.address!]),
        )
      : {};
  return {
    ...options,
    layout: first.layout,
    stores: first.stores,
    services: services ?? (first.layout === 'split' ? [] : running),
    env: { ...(first.paymentSandbox ? { SUMUP_API_BASE: first.paymentSandbox.url } : {}), ...elsewhere, ...env },
  };
}

function handlesOf(components: PlatformComponents): Partial<Stack> {
  const handle = <H extends object>(
    component: { exposed: H; db: Knex; bindings: ServiceBinding[] } | undefined,
  ): ComponentHandle<H> | undefined =>
    component && { ...component.exposed, db: component.db, bindings: component.bindings };
  return {
    identity: handle(components.identity),
    loyalty: handle(components.loyalty),
    inventory: handle(components.inventory),
    checkout: handle(components.checkout),
  };
}

/** Each component in a gRPC server of its own, dependencies first, each address handed on to its callers. */
async function startSplitServices(
  stack: Partial<Stack>,
  services: Set<ServiceName>,
  configFor: (service: ServiceName, bindAddress?: Record<string, string>) => EnvReader,
  env: Env,
  now: (() => number) | undefined,
  stoppers: Array<() => Promise<void>>,
): Promise<void> {
  if (services.has('inventory')) {
    const config = configFor('inventory', { INVENTORY_ADDR: '127.0.0.1:0' });
    const inventory = await startInventoryServer(readInventoryConfig(config), {
      migrate: true,
      ...readInventoryServeKeys(config),
    });
    stack.inventory = inventory;
    stoppers.unshift(() => inventory.stop());
    env.INVENTORY_ADDR = inventory.address;
  }
  if (services.has('loyalty')) {
    const config = configFor('loyalty', { LOYALTY_ADDR: '127.0.0.1:0' });
    const loyalty = await startLoyaltyServer(readLoyaltyConfig(config), {
      migrate: true,
      ...readLoyaltyServeKeys(config),
    });
    stack.loyalty = loyalty;
    stoppers.unshift(() => loyalty.stop());
    env.LOYALTY_ADDR = loyalty.address;
  }
  if (services.has('identity')) {
    const config = configFor('identity', { IDENTITY_ADDR: '127.0.0.1:0' });
    const identity = await startIdentityServer(readIdentityConfig(config), {
      migrate: true,
      now,
      ...readIdentityServeKeys(config),
    });
    stack.identity = identity;
    stoppers.unshift(() => identity.stop());
    env.IDENTITY_ADDR = identity.address;
  }
  if (services.has('checkout')) {
    const config = configFor('checkout', { CHECKOUT_ADDR: '127.0.0.1:0' });
    const checkout = await startCheckoutServer(readCheckoutConfig(config), {
      migrate: true,
      now,
      ...readCheckoutServeKeys(config),
    });
    stack.checkout = checkout;
    stoppers.unshift(() => checkout.stop());
    env.CHECKOUT_ADDR = checkout.address;
  }
}
