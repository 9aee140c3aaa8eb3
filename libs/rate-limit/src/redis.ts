import { Redis } from 'ioredis';
import type { Logger } from '@storefront/logging';

/**
 * Connects to Redis with every key under `keyPrefix`, failing loudly when Redis was asked for
 * and does not answer; afterwards ioredis reconnects by itself.
 */
export async function connectRedis(url: string, keyPrefix: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, { keyPrefix, lazyConnect: true, maxRetriesPerRequest: 2 });
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
