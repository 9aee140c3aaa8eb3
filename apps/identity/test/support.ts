/** Identity on its own, on the backend under test, with a clock the test moves. */
import { Redis } from 'ioredis';
import type { Env } from '@storefront/config';
import { CallerTokenSigner } from '@storefront/caller-token';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import type { RpcClient } from '@storefront/grpc';
import { identity } from '@storefront/proto';
import { ManualClock, clientAs, provisionStores, serviceTestEnv, type TestStores } from '@storefront/testing';
import {
  migrations,
  readIdentityConfig,
  readIdentityServeKeys,
  startIdentityServer,
  type IdentityServer,
} from '../src';

export interface IdentityHarness {
  server: IdentityServer;
  client: RpcClient<typeof identity.IdentityServiceService>;
  signer: CallerTokenSigner;
  clock: ManualClock;
  stores: TestStores;
  stop(): Promise<void>;
}

/** Cheap argon2 cost: the parameters are configuration, the behaviour under test is not. */
export const FAST_ARGON2: Env = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };

export async function startIdentity(extraEnv: Env = {}): Promise<IdentityHarness> {
  const { stores, keys, env } = await serviceTestEnv('identity', { ...FAST_ARGON2, ...extraEnv });
  const clock = new ManualClock();
  const server = await startIdentityServer(readIdentityConfig(env), {
    migrate: true,
    now: clock.now,
    ...readIdentityServeKeys(env),
  }).catch(async (error: unknown) => {
    await stores.cleanup();
    throw error;
  });
  // The signer runs on real time: caller tokens live a minute whatever the identity clock says.
  const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem);
  const client = clientAs('gateway', identity.IdentityServiceService, 'identity', server.address, undefined, signer);
  return {
    server,
    client,
    signer,
    clock,
    stores,
    stop: async () => {
      client.close();
      await server.stop();
      await stores.cleanup();
    },
  };
}

export interface StoreHarness {
  stores: TestStores;
  db: Knex;
  /** Present when the backend under test has Redis. */
  redis?: Redis;
  close(): Promise<void>;
}

/** identity's SQL store (migrated) and, on the MySQL backend, a Redis connection with this run's prefix. */
export async function openStores(): Promise<StoreHarness> {
  const stores = await provisionStores();
  const mysqlUrl = stores.mysqlUrlFor('identity');
  if (mysqlUrl) await ensureMysqlDatabase(mysqlUrl);
  const db = openDatabase({ service: 'identity', dataDir: stores.dataDir, mysqlUrl });
  await applyMigrations(db, migrations);
  const redis = stores.redisUrl ? new Redis(stores.redisUrl, { keyPrefix: stores.redisPrefix }) : undefined;
  return {
    stores,
    db,
    redis,
    close: async () => {
      redis?.disconnect();
      await db.destroy();
      await stores.cleanup();
    },
  };
}
