/**
 * One client per component the edge calls, each call with a deadline: in-process when this
 * process hosts the component, over gRPC (service token, and a caller token naming the customer)
 * when it runs elsewhere. Routes see the same typed facade either way.
 */
import { checkout, identity, inventory, loyalty } from '@storefront/proto';
import { createRpcClient, type RpcClient } from '@storefront/grpc';
import { ConfigError } from '@storefront/config';
import { CallerTokenSigner } from '@storefront/caller-token';
import type { OpenComponent } from '@storefront/lifecycle';
import { ServiceTokenSigner } from '@storefront/service-token';
import type { GatewayConfig } from './config';

/** Each component's facade: its generated service definition. */
export const FACADES = {
  identity: identity.IdentityServiceService,
  loyalty: loyalty.LoyaltyServiceService,
  checkout: checkout.CheckoutServiceService,
  inventory: inventory.InventoryServiceService,
} as const;

export type ComponentName = keyof typeof FACADES;
export const COMPONENT_NAMES = Object.keys(FACADES) as ComponentName[];

export type ServiceClients = { [K in ComponentName]: RpcClient<(typeof FACADES)[K]> };

/** The components this process hosts, open and ready to be called in-process. */
export type HostedComponents = Partial<Record<ComponentName, OpenComponent>>;

export async function createServiceClients(
  config: GatewayConfig,
  hosted: HostedComponents = {},
): Promise<ServiceClients> {
  const defaultDeadlineMs = config.rpcDeadlineMs;
  const remote = COMPONENT_NAMES.filter((name) => !hosted[name]);
  const signer =
    remote.length > 0
      ? new ServiceTokenSigner('gateway', required(config.serviceTokenPrivateKey, 'SERVICE_TOKEN_PRIVATE_KEY', remote))
      : undefined;
  const customerTokens =
    remote.length > 0
      ? await CallerTokenSigner.fromPem(required(config.callerTokenPrivateKey, 'CALLER_TOKEN_PRIVATE_KEY', remote))
      : undefined;
  const clientOf = <K extends ComponentName>(name: K): ServiceClients[K] => {
    const local = hosted[name];
    return (
      local
        ? local.client(FACADES[name], 'gateway', defaultDeadlineMs)
        : createRpcClient(FACADES[name], config.addresses[name], {
            target: name,
            defaultDeadlineMs,
            signer,
            customerTokens,
          })
    ) as ServiceClients[K];
  };
  return {
    identity: clientOf('identity'),
    loyalty: clientOf('loyalty'),
    checkout: clientOf('checkout'),
    inventory: clientOf('inventory'),
  };
}

function required(value: string | undefined, variable: string, remote: ComponentName[]): string {
  if (!value) throw new ConfigError(`${variable} is required to call ${remote.join(', ')} over gRPC`);
  return value;
}

export function closeServiceClients(clients: ServiceClients): void {
  for (const client of Object.values(clients)) client.close();
}
