import { ConfigError, type EnvReader } from '@storefront/config';
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
  /**
   * The owners' addresses, comma-separated,
   * mailed when an order takes a size below its low-stock threshold; none: no mail.
   */
  lowStockMailTo?: string;
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
    ...lowStockMailTo(env),
  };
}

/** LOW_STOCK_MAIL_TO: one or more addresses, comma-separated (decision 1316). */
function lowStockMailTo(env: EnvReader): { lowStockMailTo?: string } {
  const raw = env.optional('LOW_STOCK_MAIL_TO');
  if (raw === undefined) return {};
  const addresses = raw.split(',').map((address) => address.trim());
  if (addresses.some((address) => !/^[^\s@,]+@[^\s@,]+$/.test(address)))
    throw new ConfigError('LOW_STOCK_MAIL_TO must be email addresses separated by commas');
  return { lowStockMailTo: addresses.join(', ') };
}

/** Keys only serving needs, read apart from the rest so `migrate` needs none of them. */
export interface InventoryServeKeys {
  /** Public keys of the services inventory's access table admits. */
  servicePublicKeys: ServicePublicKeys;
}

export function readInventoryServeKeys(env: EnvReader): InventoryServeKeys {
  return { servicePublicKeys: readServiceTokenPublicKeys(env, callersOf(INVENTORY_ACCESS)) };
}
