/**
 * One process of the platform: the components it hosts, opened in dependency order and called
 * in-process, and the edge in front of them. Components it does not host are reached over gRPC,
 * so the same code runs as one process (the default), as the per-service split, or anything
 * between, by configuration alone.
 */
import { openCheckoutComponent, type CheckoutHandles } from '@storefront/checkout';
import { createRpcClient } from '@storefront/grpc';
import { openIdentityComponent, type IdentityHandles } from '@storefront/identity';
import { openInventoryComponent, type InventoryHandles } from '@storefront/inventory';
import { openLoyaltyComponent, type LoyaltyHandles } from '@storefront/loyalty';
import { startGateway, type GatewayServer } from '@storefront/gateway';
import type { Connect, OpenComponent } from '@storefront/lifecycle';
import { createLogger, type Logger } from '@storefront/logging';
import { ConfigError } from '@storefront/config';
import { ServiceTokenSigner } from '@storefront/service-token';
import type { PlatformConfig } from './config';

export interface PlatformOptions {
  /**
   * Apply each hosted component's migrations first. By default a component on the embedded SQLite
   * store migrates itself and one on MySQL does not (deployments run `migrate` as its own step).
   */
  migrate?: boolean;
  logger?: Logger;
  /** Epoch milliseconds for the components and the session cache; tests move it. */
  now?: () => number;
}

/** The components a platform process hosts, by name, with the handles each offers (tests, operators). */
export interface PlatformComponents {
  identity?: OpenComponent<IdentityHandles>;
  loyalty?: OpenComponent<LoyaltyHandles>;
  checkout?: OpenComponent<CheckoutHandles>;
  inventory?: OpenComponent<InventoryHandles>;
}

export interface RunningPlatform {
  gateway: GatewayServer;
  components: PlatformComponents;
  stop(): Promise<void>;
}

/** The components a process hosts, opened and ready; close them once done. */
export interface OpenedComponents {
  components: PlatformComponents;
  /** In the order they were opened (the order they depend on each other). */
  opened: OpenComponent[];
  close(): Promise<void>;
}

/**
 * Opens the components the configuration hosts, in the order they depend on each other, without starting their
 * background work: the platform's process, and ops commands that run a workflow across components.
 */
export async function openComponents(
  config: PlatformConfig,
  { migrate, logger = createLogger('platform', config.logLevel), now }: PlatformOptions,
): Promise<OpenedComponents> {
  const components: PlatformComponents = {};
  const opened: OpenComponent[] = [];
  const options = (service: string, store: { mysqlUrl?: string }) => ({
    migrate: migrate ?? !store.mysqlUrl,
    now,
    logger: logger.child({ component: service }),
  });
  const close = async () => {
    for (const component of [...opened].reverse()) await component.close();
  };
  try {
    const { identity, loyalty, checkout, inventory } = config.hosted;
    if (inventory)
      opened.push(
        (components.inventory = await openInventoryComponent(inventory, options('inventory', inventory.store))),
      );
    if (loyalty)
      opened.push((components.loyalty = await openLoyaltyComponent(loyalty, options('loyalty', loyalty.store))));
    if (identity)
      opened.push((components.identity = await openIdentityComponent(identity, options('identity', identity.store))));
    if (checkout) {
      const connect = checkoutConnections(config, components, checkout.inventoryAddress, checkout.loyaltyAddress);
      opened.push(
        (components.checkout = await openCheckoutComponent(checkout, {
          ...options('checkout', checkout.store),
          connect,
        })),
      );
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { components, opened, close };
}

export async function startPlatform(config: PlatformConfig, options: PlatformOptions): Promise<RunningPlatform> {
  const logger = options.logger ?? createLogger('platform', config.logLevel);
  // Opened in the order they depend on each other, closed in the reverse.
  const { components, opened, close } = await openComponents(config, { ...options, logger });
  let gateway: GatewayServer;
  try {
    gateway = await startGateway(config.gateway, {
      logger: logger.child({ component: 'gateway' }),
      now: options.now,
      hosted: components,
    });
  } catch (error) {
    await close();
    throw error;
  }
  for (const component of opened) component.startBackground();
  return {
    gateway,
    components,
    async stop() {
      for (const component of opened) await component.stopBackground();
      await gateway.stop();
      await close();
    },
  };
}

/** Checkout's way to inventory and loyalty: in-process when hosted here, else over gRPC as checkout. */
function checkoutConnections(
  config: PlatformConfig,
  components: PlatformComponents,
  inventoryAddress: string,
  loyaltyAddress: string,
): Connect {
  const addresses: Record<string, string> = { inventory: inventoryAddress, loyalty: loyaltyAddress };
  let signer: ServiceTokenSigner | undefined;
  return (definition, target) => {
    const local = components[target as keyof PlatformComponents];
    if (local) return local.client(definition, 'checkout');
    if (!config.serviceTokenPrivateKey)
      throw new ConfigError(`SERVICE_TOKEN_PRIVATE_KEY is required for checkout to call ${target} over gRPC`);
    signer ??= new ServiceTokenSigner('checkout', config.serviceTokenPrivateKey);
    return createRpcClient(definition, addresses[target] ?? '', { target, signer });
  };
}
