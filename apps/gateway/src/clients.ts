/** One promise-based gRPC client per downstream service, each call with a deadline. */
import { checkout, identity, inventory, loyalty } from '@storefront/proto';
import { createRpcClient, type RpcClient } from '@storefront/grpc';
import type { GatewayConfig } from './config';

export interface ServiceClients {
  identity: RpcClient<typeof identity.IdentityServiceService>;
  loyalty: RpcClient<typeof loyalty.LoyaltyServiceService>;
  checkout: RpcClient<typeof checkout.CheckoutServiceService>;
  inventory: RpcClient<typeof inventory.InventoryServiceService>;
}

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const defaultDeadlineMs = config.rpcDeadlineMs;
  return {
    identity: createRpcClient(identity.IdentityServiceService, config.addresses.identity, { target: 'identity', defaultDeadlineMs }),
    loyalty: createRpcClient(loyalty.LoyaltyServiceService, config.addresses.loyalty, { target: 'loyalty', defaultDeadlineMs }),
    checkout: createRpcClient(checkout.CheckoutServiceService, config.addresses.checkout, { target: 'checkout', defaultDeadlineMs }),
    inventory: createRpcClient(inventory.InventoryServiceService, config.addresses.inventory, { target: 'inventory', defaultDeadlineMs }),
  };
}

export function closeServiceClients(clients: ServiceClients): void {
  for (const client of Object.values(clients)) client.close();
}
