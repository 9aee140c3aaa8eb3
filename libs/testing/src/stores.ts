/**
 * Fresh stores for one test run on the backend under test: a temporary directory for SQLite,
 * uniquely named MySQL databases (dropped afterwards) and a unique Redis key prefix (deleted
 * afterwards). A backend that was asked for but does not answer fails loudly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import Redis from 'ioredis';
import { withDatabase } from '@storefront/db';

export type Backend = 'sqlite' | 'mysql';

/** Chosen by scripts/test.mjs for each mocha run. */
export function currentBackend(): Backend {
  const value = process.env.STOREFRONT_TEST_BACKEND ?? 'sqlite';
  if (value !== 'sqlite' && value !== 'mysql')
    throw new Error(`STOREFRONT_TEST_BACKEND must be sqlite or mysql, got ${value}`);
  return value;
}

export interface TestStores {
  backend: Backend;
  dataDir: string;
  /** Full MySQL URL of this run's database for a service, or undefined on SQLite. */
  mysqlUrlFor(service: string): string | undefined;
  /** Redis URL when the backend has Redis. */
  redisUrl?: string;
  /** Key prefix isolating this run in Redis. */
  redisPrefix: string;
  cleanup(): Promise<void>;
}

export async function provisionStores(backend: Backend = currentBackend()): Promise<TestStores> {
  const runId = randomBytes(4).toString('hex');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-test-'));
  const redisPrefix = `test:${runId}:`;
  if (backend === 'sqlite') {
    return {
      backend,
      dataDir,
      mysqlUrlFor: () => undefined,
      redisPrefix,
      cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const mysqlServer = requiredEnv('MYSQL_URL');
  const redisUrl = requiredEnv('REDIS_URL');
  const databasePrefix = `t_${runId}_`;
  return {
    backend,
    dataDir,
    mysqlUrlFor: (service) => withDatabase(mysqlServer, `${databasePrefix}${service}`),
    redisUrl,
    redisPrefix,
    cleanup: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await dropDatabases(mysqlServer, databasePrefix);
      await deleteKeys(redisUrl, redisPrefix);
    },
  };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`the mysql test backend needs ${name}; scripts/test.mjs sets it`);
  return value;
}

async function dropDatabases(serverUrl: string, prefix: string): Promise<void> {
  const server = knexFactory({ client: 'mysql2', connection: { uri: serverUrl } as never, pool: { min: 0, max: 1 } });
  try {
    const [rows] = (await server.raw('SHOW DATABASES LIKE ?', [`${prefix.replace(/_/g, '\\_')}%`])) as [
      Record<string, string>[],
    ];
    for (const row of rows) await server.raw('DROP DATABASE IF EXISTS ??', [Object.values(row)[0]!]);
  } finally {
    await server.destroy();
  }
}

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * How many sessions identity keeps for a user, in whichever store the backend under test
 * holds them (the `sessions` table of identity's database, or Redis).
 */
export async function sessionCountOf(stores: TestStores, identityDb: Knex, userId: string): Promise<number> {
  if (!stores.redisUrl) return (await identityDb('sessions').where({ user_id: userId })).length;
  const redis = new Redis(stores.redisUrl);
  try {
    const keys = await redis.keys(`${stores.redisPrefix}session:*`);
    const records = keys.length === 0 ? [] : await redis.mget(...keys);
    return records.filter((raw) => raw !== null && (JSON.parse(raw) as { userId: string }).userId === userId).length;
  } finally {
    redis.disconnect();
  }
}
