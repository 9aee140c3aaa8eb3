/** One gRPC service started alone in a test: its environment on this run's stores, and a clock the test moves. */
import { EnvReader, type Env } from '@storefront/config';
import { generateCallerKeyPair, type CallerKeyPair } from '@storefront/caller-token';
import { testServiceTokenEnv } from './service-identities';
import { provisionStores, type TestStores } from './stores';

export class ManualClock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  readonly now = () => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface ServiceTestEnv {
  stores: TestStores;
  /** The caller-token key pair: the service gets the public key, the test signs with the private one. */
  keys: CallerKeyPair;
  env: EnvReader;
}

/**
 * The environment a service reads when started alone on an ephemeral port: this run's data
 * directory, MySQL database and Redis prefix (on the backend under test), caller-token and
 * service-token keys, then `extraEnv` on top.
 */
export async function serviceTestEnv(
  service: 'identity' | 'inventory' | 'loyalty',
  extraEnv: Env = {},
): Promise<ServiceTestEnv> {
  const stores = await provisionStores();
  const keys = await generateCallerKeyPair();
  const prefix = service.toUpperCase();
  const mysqlUrl = stores.mysqlUrlFor(service);
  const env = new EnvReader({
    DATA_DIR: stores.dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    CALLER_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
    [`${prefix}_ADDR`]: '127.0.0.1:0',
    REDIS_KEY_PREFIX: stores.redisPrefix,
    ...(mysqlUrl ? { [`${prefix}_MYSQL_URL`]: mysqlUrl } : {}),
    ...(stores.redisUrl ? { REDIS_URL: stores.redisUrl } : {}),
    ...testServiceTokenEnv(),
    ...extraEnv,
  });
  return { stores, keys, env };
}
