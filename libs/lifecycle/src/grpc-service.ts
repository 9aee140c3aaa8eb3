/**
 * The start-up every gRPC service shares: its logger, its store (migrated, or refused with
 * SchemaNotMigrated when a separate migration step was left out), Redis when configured, the
 * token verifiers behind every RPC's access check, the gRPC server with its health service, and
 * one stop that undoes all of it in order.
 */
import { startGrpcServer, type RunningGrpcServer, type ServiceBinding } from '@storefront/grpc';
import { openServiceStore, ping, readStoreConfig, type Knex, type Migration, type StoreConfig } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { ServiceTokenVerifier, type ServiceName, type ServicePublicKeys } from '@storefront/service-token';
import type { Redis } from 'ioredis';
import { connectOptionalRedis } from '@storefront/rate-limit';
import { createLogger, type Logger } from '@storefront/logging';
import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';

/** The settings every gRPC service reads. */
export interface GrpcServiceConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  callerTokenPublicKey: string;
  /** Redis is connected (and probed, and closed) when set. */
  redisUrl?: string;
  redisKeyPrefix?: string;
}

/** The settings every gRPC service reads: `<SERVICE>_ADDR`, its store, and the gateway's caller-token key. */
export function readGrpcServiceConfig(env: EnvReader, service: ServiceName, defaultAddress: string): GrpcServiceConfig {
  const common = readCommon(env);
  return {
    ...common,
    address: env.address(`${service.toUpperCase()}_ADDR`, defaultAddress),
    store: readStoreConfig(env, service, common),
    callerTokenPublicKey: env.string('CALLER_TOKEN_PUBLIC_KEY'),
  };
}

/** What starting a service takes beside its configuration (main passes it, and tests). */
export interface ServiceStartOptions {
  /** Apply migrations before serving (embedded default, tests). */
  migrate: boolean;
  logger?: Logger;
  /** The service's clock in epoch milliseconds; tests move it. */
  now?: () => number;
}

/**
 * Runs `task` every `intervalMs` in the background, logging a failure rather than stopping;
 * the timer keeps no process alive. Returns what stops it.
 */
export function repeatInBackground(intervalMs: number, task: () => Promise<unknown>, logger: Logger, failure: string): () => void {
  const timer = setInterval(() => {
    task().catch((error: unknown) => logger.warn({ err: error }, failure));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export interface GrpcServiceOptions extends Omit<ServiceStartOptions, 'now'> {
  /** The service's name: its logger's, and the audience its callers' service tokens name. */
  service: ServiceName;
  config: GrpcServiceConfig;
  migrations: Record<string, Migration>;
  /** Public keys of the services the access tables admit. */
  servicePublicKeys: ServicePublicKeys;
}

/** What the service builds on its open store. */
export interface ServiceParts<Exposed extends object> {
  bindings: ServiceBinding[];
  /** Fields the "listening" line logs beside the address. */
  describe?: Record<string, unknown>;
  /** Starts background work once the server listens; what it returns stops that work before the server stops taking calls. */
  startBackground?(): () => Promise<void> | void;
  /** Closes what calls in flight use (clients, pending writes), after the server has stopped and before the store closes. */
  close?(): Promise<void> | void;
  /** Handles the running service offers its starter (tests, operators). */
  exposed: Exposed;
}

export interface BuildContext {
  db: Knex;
  redis: Redis | undefined;
  logger: Logger;
}

export interface RunningGrpcService {
  address: string;
  db: Knex;
  stop(): Promise<void>;
}

export async function startGrpcService<Exposed extends object>(
  options: GrpcServiceOptions,
  build: (context: BuildContext) => Promise<ServiceParts<Exposed>>,
): Promise<RunningGrpcService & Exposed> {
  const { config, service } = options;
  const logger = options.logger ?? createLogger(service, config.logLevel);
  const db = await openServiceStore(config.store, options.migrations, { migrate: options.migrate });
  const redis = await connectOptionalRedis(config.redisUrl, config.redisKeyPrefix ?? '', logger, () => db.destroy());
  const closeConnections = async () => {
    redis?.disconnect();
    await db.destroy();
  };
  let parts: ServiceParts<Exposed>;
  try {
    parts = await build({ db, redis, logger });
  } catch (error) {
    await closeConnections();
    throw error;
  }
  const closeAll = async () => {
    await parts.close?.();
    await closeConnections();
  };
  let grpcServer: RunningGrpcServer;
  try {
    grpcServer = await startGrpcServer({
      address: config.address,
      logger,
      serviceTokens: new ServiceTokenVerifier(service, options.servicePublicKeys),
      callerTokens: await CallerTokenVerifier.fromPem(config.callerTokenPublicKey),
      probe: async () => {
        await ping(db);
        if (redis) await redis.ping();
      },
      services: parts.bindings,
    });
  } catch (error) {
    await closeAll();
    throw error;
  }
  const stopBackground = parts.startBackground?.();
  logger.info({ address: grpcServer.address, ...parts.describe }, `${service} listening`);
  const running: RunningGrpcService = {
    address: grpcServer.address,
    db,
    async stop() {
      await stopBackground?.();
      await grpcServer.shutdown();
      await closeAll();
    },
  };
  return { ...parts.exposed, ...running };
}
