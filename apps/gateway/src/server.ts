import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallerTokenSigner } from '@storefront/caller-token';
import { createLogger, type Logger } from '@storefront/logging';
import { createApp } from './app';
import { closeServiceClients, createServiceClients } from './clients';
import type { GatewayConfig } from './config';
import { API_AREAS } from './openapi/document';
import { RequestValidator } from './openapi/validator';
import { createReadinessCheck, type ReadinessCheck } from './readiness';
import { SessionCache } from './sessions/session-cache';
import { inProcessRevocations, redisRevocations } from './sessions/revocations';

export interface GatewayServer {
  url: string;
  port: number;
  /** Whether every service behind the gateway is serving, and the state of each. */
  readiness: ReadinessCheck;
  /** Stops accepting connections and waits for in-flight requests. */
  stop(): Promise<void>;
}

export interface GatewayOptions {
  logger?: Logger;
  /** Epoch milliseconds for the session cache; tests share it with identity to move time. */
  now?: () => number;
}

export async function startGateway(config: GatewayConfig, { logger = createLogger('gateway', config.logLevel), now }: GatewayOptions = {}): Promise<GatewayServer> {
  const clients = createServiceClients(config);
  const signer = await CallerTokenSigner.fromPem(config.callerTokenPrivateKey);
  const sessions = new SessionCache({ ttlMs: config.sessionCacheTtlMs, maxEntries: config.sessionCacheMaxEntries, now });
  const revocations = config.redisUrl ? await redisRevocations(config.redisUrl, config.redisKeyPrefix, sessions, logger) : inProcessRevocations(sessions);
  const readiness = createReadinessCheck(config.addresses);
  const app = createApp({ config, clients, signer, validator: new RequestValidator(API_AREAS), logger, readiness, sessions, revocations });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  logger.info({ url }, 'gateway listening');
  return {
    url,
    port,
    readiness,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          closeServiceClients(clients);
          readiness.close();
          void revocations.close().then(resolve);
        });
        server.closeIdleConnections();
      }),
  };
}
