/**
 * Tells every gateway replica that a session is gone (logout), so none keeps serving it from its
 * session cache. With REDIS_URL the message goes over Redis pub/sub to every replica; without it,
 * to every gateway in this process. A message names the session by the SHA-256 of its token,
 * never the token.
 */
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { connectRedis } from '@storefront/rate-limit';
import type { Logger } from '@storefront/logging';

export interface RevocationListener {
  revoke(sessionKey: string): void;
  /** Called when messages may have been missed (a lost Redis subscription). */
  clear(): void;
}

export interface SessionRevocations {
  /** Delivers the revocation to every replica, this one included. */
  publish(sessionKey: string): Promise<void>;
  close(): Promise<void>;
}

const REVOKED = 'session-revoked';
const inProcess = new EventEmitter().setMaxListeners(0);

export function inProcessRevocations(listener: RevocationListener): SessionRevocations {
  const onRevoked = (key: string) => listener.revoke(key);
  inProcess.on(REVOKED, onRevoked);
  return {
    publish: async (key) => {
      inProcess.emit(REVOKED, key);
    },
    close: async () => {
      inProcess.off(REVOKED, onRevoked);
    },
  };
}

export async function redisRevocations(
  url: string,
  keyPrefix: string,
  listener: RevocationListener,
  logger: Logger,
): Promise<SessionRevocations> {
  // Channel names are not keys, so ioredis does not prefix them: the prefix is added here.
  const channel = `${keyPrefix}${REVOKED}`;
  const publisher = await connectRedis(url, keyPrefix, logger);
  let subscriber: Redis;
  try {
    subscriber = await connectRedis(url, keyPrefix, logger);
    await subscriber.subscribe(channel);
  } catch (error) {
    publisher.disconnect();
    throw error;
  }
  subscriber.on('message', (from: string, key: string) => {
    if (from === channel) listener.revoke(key);
  });
  // Connected already, so a later 'ready' is a reconnect (ioredis subscribes again): what was
  // published meanwhile is lost, so nothing cached is trusted any more.
  subscriber.on('ready', () => listener.clear());
  return {
    publish: async (key) => {
      listener.revoke(key);
      await publisher.publish(channel, key);
    },
    close: async () => {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
