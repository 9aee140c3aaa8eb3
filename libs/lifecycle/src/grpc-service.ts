/**
 * The start-up every gRPC service shares: its logger, its store (migrated, or refused with
 * SchemaNotMigrated when a separate migration step was left out), Redis when configured, the
 * token verifiers behind every RPC's access check, the gRPC server with its health service, and
 * one stop that undoes all of it in order.
 */
import { startGrpcServer, type ServiceBinding } from '@storefront/grpc';
import { openServiceStore, ping, type Knex, type Migration, type StoreConfig } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { ServiceTokenVerifier, type ServiceName, type ServicePublicKeys } from '@storefront/service-token';
import type { Redis } from 'ioredis';
import { connectOptionalRedis } from '@storefront/rate-limit';
import { createLogger, type Logger } from '@storefront/logging';
import type { CommonConfig } from '@storefront/config';

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

export interface GrpcServiceOptions {
  /** The service's name: its logger's, and the audience its callers' service tokens name. */
  service: ServiceName;
  config: GrpcServiceConfig;
  migrations: Record<string, Migration>;
  /** Apply migrations before serving (embedded default, tests). */
  migrate: boolean;
  /** Public keys of the services the access tables admit. */
  servicePublicKeys: ServicePublicKeys;
  logger?: Logger;
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
  let grpcServer;
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
