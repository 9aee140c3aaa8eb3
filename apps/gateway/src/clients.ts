/** One promise-based gRPC client per downstream service, each call with a deadline. */
import { checkout, identity, inventory, loyalty } from '@storefront/proto';
import { createRpcClient, type RpcClient } from '@storefront/grpc';
import { ServiceTokenSigner } from '@storefront/service-token';
import type { GatewayConfig } from './config';

export interface ServiceClients {
  identity: RpcClient<typeof identity.IdentityServiceService>;
  loyalty: RpcClient<typeof loyalty.LoyaltyServiceService>;
  checkout: RpcClient<typeof checkout.CheckoutServiceService>;
  inventory: RpcClient<typeof inventory.InventoryServiceService>;
}

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const defaultDeadlineMs = config.rpcDeadlineMs;
  const signer = new ServiceTokenSigner('gateway', config.serviceTokenPrivateKey);
  return {
    identity: createRpcClient(identity.IdentityServiceService, config.addresses.identity, { target: 'identity', defaultDeadlineMs, signer }),
    loyalty: createRpcClient(loyalty.LoyaltyServiceService, config.addresses.loyalty, { target: 'loyalty', defaultDeadlineMs, signer }),
    checkout: createRpcClient(checkout.CheckoutServiceService, config.addresses.checkout, { target: 'checkout', defaultDeadlineMs, signer }),
    inventory: createRpcClient(inventory.InventoryServiceService, config.addresses.inventory, { target: 'inventory', defaultDeadlineMs, signer }),
  };
}

export function closeServiceClients(clients: ServiceClients): void {
  for (const client of Object.values(clients)) client.close();
}
