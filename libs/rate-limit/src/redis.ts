import { Redis } from 'ioredis';
import type { Logger } from '@storefront/logging';

/**
 * A Redis that stops answering fails a command after 1 s and a connect after 2 s, well inside
 * the callers' 5 s RPC deadline, so the call answers 503 (see isStoreOutage in @storefront/errors)
 * instead of hanging until the gateway times out.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;

/**
 * Connects to Redis with every key under `keyPrefix`, failing loudly when Redis was asked for
 * and does not answer; afterwards ioredis reconnects by itself.
 */
export async function connectRedis(url: string, keyPrefix: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    // Commands issued in the same tick (concurrent requests, a request's parallel counters) go out
    // in one write and come back in one read: fewer system calls on the hottest paths.
    enableAutoPipelining: true,
  });
  // Each failed reconnect is worth a line, not a crash.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return redis;
}

/**
 * Redis when a URL is configured, else undefined. A failed connect closes the store opened
 * before it (`closeOnFailure`), so a service that cannot start leaves no pool behind.
 */
export async function connectOptionalRedis(
  url: string | undefined,
  keyPrefix: string,
  logger: Logger,
  closeOnFailure: () => Promise<void>,
): Promise<Redis | undefined> {
  if (!url) return undefined;
  try {
    return await connectRedis(url, keyPrefix, logger);
  } catch (error) {
    await closeOnFailure();
    throw error;
  }
}
