import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@storefront/logging';
import { repeatInBackground } from '@storefront/lifecycle';
import { resumeErasures, type ErasurePassSummary } from './application/account-erasure';
import { createApp } from './app';
import { closeServiceClients, createServiceClients, type HostedComponents } from './clients';
import type { GatewayConfig } from './config';
import { buildOpenApiDocument } from './api';
import { RequestValidator } from './kit/validator';
import { MarkdownConverter } from './kit/markdown-converter';
import { createReadinessCheck, type ReadinessCheck } from './readiness';
import { SessionCache } from './kit/session-cache';
import { inProcessRevocations, redisRevocations } from './kit/revocations';
import { connectRedis, MemoryWindowCounters, RedisWindowCounters } from '@storefront/rate-limit';

export interface GatewayServer {
  url: string;
  port: number;
  /** Whether every service behind the gateway is serving, and the state of each. */
  readiness: ReadinessCheck;
  /**
   * Drains: stops accepting connections, closes idle keep-alive connections at once, answers
   * in-flight and later requests on open connections with `Connection: close`, and resolves once
   * every connection has ended.
   */
  stop(): Promise<void>;
  /** Takes up the erasures some component has still to confirm (tests, operators) instead of waiting for the timer. */
  resumeErasuresNow(): Promise<ErasurePassSummary>;
}

// An erasure interrupted (a component down, a crash) is taken up again within a minute.
const ERASURE_PASS_INTERVAL_MS = 60 * 1000;

export interface GatewayOptions {
  logger?: Logger;
  /** Epoch milliseconds for the session cache; tests share it with identity to move time. */
  now?: () => number;
  /** Components this process hosts: called in-process; the others over gRPC at their addresses. */
  hosted?: HostedComponents;
}

export async function startGateway(
  config: GatewayConfig,
  { logger = createLogger('gateway', config.logLevel), now, hosted = {} }: GatewayOptions = {},
): Promise<GatewayServer> {
  const clients = await createServiceClients(config, hosted);
  const sessions = new SessionCache({
    ttlMs: config.sessionCacheTtlMs,
    maxEntries: config.sessionCacheMaxEntries,
    now,
  });
  const revocations = config.redisUrl
    ? await redisRevocations(config.redisUrl, config.redisKeyPrefix, sessions, logger)
    : inProcessRevocations(sessions);
  // Every replica counts in the same Redis; without it each process counts its own (docs/decisions/1152).
  const countersRedis = config.redisUrl
    ? await connectRedis(config.redisUrl, config.redisKeyPrefix, logger)
    : undefined;
  const counters = countersRedis ? new RedisWindowCounters(countersRedis) : new MemoryWindowCounters();
  const readiness = createReadinessCheck(config.addresses, hosted);
  const markdown = new MarkdownConverter({
    timeoutMs: config.markdownTimeoutMs,
    workerHeapMb: config.markdownWorkerHeapMb,
    cacheBytes: config.markdownCacheBytes,
    logger,
  });
  const document = buildOpenApiDocument(config.publicBaseUrl);
  const context = {
    config,
    clients,
    validator: new RequestValidator(document.components.schemas),
    logger,
    readiness,
    sessions,
    revocations,
    counters,
    markdown,
    now: now ?? Date.now,
  };
  const { app, direct } = createApp(context, document);
  const server = http.createServer(app);
  direct.serveAhead(server, logger);
  const drain = drainOnStop(server);
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
  const stopErasurePass = repeatInBackground(
    ERASURE_PASS_INTERVAL_MS,
    () => resumeErasures(context),
    logger,
    'an erasure pass failed',
  );
  return {
    url,
    port,
    readiness,
    resumeErasuresNow: () => resumeErasures(context),
    stop: () =>
      new Promise<void>((resolve) => {
        stopErasurePass();
        server.close(() => {
          closeServiceClients(clients);
          readiness.close();
          countersRedis?.disconnect();
          void Promise.all([markdown.close(), revocations.close()]).then(() => resolve());
        });
        drain();
      }),
  };
}

/**
 * Makes a stopping server shed its keep-alive connections: a client that keeps a connection busy
 * would otherwise be served on it until the shutdown deadline, while new connections are refused.
 * Returns the function that starts draining.
 */
function drainOnStop(server: http.Server): () => void {
  const unanswered = new Set<http.ServerResponse>();
  let draining = false;
  const track = (response: http.ServerResponse) => {
    if (draining) {
      response.setHeader('Connection', 'close');
      return;
    }
    unanswered.add(response);
    response.once('close', () => unanswered.delete(response));
  };
  // Wraps the server's emit rather than listening for 'request': the routes answered ahead of
  // Express never reach the listeners, and their requests must drain too. Installed after
  // DirectRoutes.serveAhead, so it sees every request before any handler can answer.
  const emit = server.emit;
  server.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') track(args[1] as http.ServerResponse);
    return emit.apply(this, [event, ...args] as Parameters<http.Server['emit']>);
  } as http.Server['emit'];
  return () => {
    draining = true;
    for (const response of unanswered) {
      if (!response.headersSent) response.setHeader('Connection', 'close');
      // Already answering with keep-alive: its connection is closed once it falls idle.
      else response.once('close', () => setImmediate(() => server.closeIdleConnections()));
    }
    server.closeIdleConnections();
  };
}
