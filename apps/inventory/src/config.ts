import type { EnvReader } from '@storefront/config';
import { readMailConfig, type MailConfig } from '@storefront/outbox';
import { readGrpcServiceConfig, type GrpcServiceConfig } from '@storefront/lifecycle';
import { DEFAULT_MERCHANT_CODE } from '@storefront/formats';
import { callersOf } from '@storefront/grpc';
import { readServiceTokenPublicKeys, type ServicePublicKeys } from '@storefront/service-token';
import { INVENTORY_ACCESS } from './access';

export interface InventoryConfig extends GrpcServiceConfig {
  /** Seed the demo catalog into an empty store (the embedded default). */
  seedDemoCatalog: boolean;
  /** Lifetime of a reservation when Reserve does not ask for one. */
  reservationTtlSeconds: number;
  /** How often expired reservations are released. */
  sweepIntervalMs: number;
  /** Published in products.json so storefronts build checkouts for the right merchant. */
  merchantCode: string;
  /** Origin of the public gateway: back-in-stock mails link to its product pages and confirm/unsubscribe pages. */
  publicBaseUrl: string;
  /** Where back-in-stock mails go. */
  mail: MailConfig;
}

export function readInventoryConfig(env: EnvReader): InventoryConfig {
  const service = readGrpcServiceConfig(env, 'inventory', '127.0.0.1:50054');
  return {
    ...service,
    seedDemoCatalog:
      env.oneOf('SEED_DEMO_DATA', ['true', 'false'], service.store.mysqlUrl ? 'false' : 'true') === 'true',
    reservationTtlSeconds: env.int('RESERVATION_TTL_SECONDS', 30 * 60, { min: 60, max: 24 * 60 * 60 }),
    sweepIntervalMs: env.int('RESERVATION_SWEEP_INTERVAL_MS', 15_000, { min: 100, max: 10 * 60 * 1000 }),
    merchantCode: env.string('SUMUP_MERCHANT_CODE', DEFAULT_MERCHANT_CODE),
    publicBaseUrl: env.url('PUBLIC_BASE_URL', 'http://localhost:8080'),
    mail: readMailConfig(env, service.dataDir),
  };
}

/** Keys only serving needs, read apart from the rest so `migrate` needs none of them. */
export interface InventoryServeKeys {
  /** Public keys of the services inventory's access table admits. */
  servicePublicKeys: ServicePublicKeys;
}

export function readInventoryServeKeys(env: EnvReader): InventoryServeKeys {
  return { servicePublicKeys: readServiceTokenPublicKeys(env, callersOf(INVENTORY_ACCESS)) };
}
