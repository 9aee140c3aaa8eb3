import type { CallerTokenSigner } from '@storefront/caller-token';
import type { Logger } from '@storefront/logging';
import type { ServiceClients } from './clients';
import type { GatewayConfig } from './config';
import type { RequestValidator } from './openapi/validator';
import type { ReadinessCheck } from './readiness';

/** What route modules get: configuration, service clients and the edge helpers. */
export interface GatewayContext {
  config: GatewayConfig;
  clients: ServiceClients;
  signer: CallerTokenSigner;
  validator: RequestValidator;
  logger: Logger;
  readiness: ReadinessCheck;
}
