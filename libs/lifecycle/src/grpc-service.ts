/**
 * Components and how a process hosts them. A component is a service's store, domain and handlers
 * behind its typed facade (the generated service interface): `openComponent` opens its store (migrated,
 * or refused with SchemaNotMigrated when a separate migration step was left out), Redis when
 * configured, and builds it; a host then calls it in-process (`createLocalClient`) or serves it
 * over gRPC (`startGrpcService`, with the token verifiers behind every RPC's access check). Each
 * has one stop that undoes all of it in order.
 */
import {
  createLocalClient,
  startGrpcServer,
  type RpcClient,
  type RunningGrpcServer,
  type ServiceBinding,
  type ServiceDefinition,
} from '@storefront/grpc';
import { openServiceStore, ping, readStoreConfig, type Knex, type Migration, type StoreConfig } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { ServiceTokenVerifier, type ServiceName, type ServicePublicKeys } from '@storefront/service-token';
import type { Redis } from 'ioredis';
import { connectOptionalRedis } from '@storefront/rate-limit';
import { createLogger, type Logger } from '@storefront/logging';
import { ConfigError, readCommon, type CommonConfig, type EnvReader } from '@storefront/config';

/** The settings every component reads, and the address it binds to when served over gRPC. */
export interface GrpcServiceConfig extends CommonConfig {
  /** Address the gRPC server binds to. */
  address: string;
  store: StoreConfig;
  /** The gateway's caller-token key; needed only to serve the component over gRPC. */
  callerTokenPublicKey?: string;
  /** Redis is connected (and probed, and closed) when set. */
  redisUrl?: string;
  redisKeyPrefix?: string;
}

/** The settings every component reads: `<SERVICE>_ADDR`, its store, and the gateway's caller-token key. */
export function readGrpcServiceConfig(env: EnvReader, service: ServiceName, defaultAddress: string): GrpcServiceConfig {
  const common = readCommon(env);
  return {
    ...common,
    address: env.address(`${service.toUpperCase()}_ADDR`, defaultAddress),
    store: readStoreConfig(env, service, common),
    callerTokenPublicKey: env.optional('CALLER_TOKEN_PUBLIC_KEY'),
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
export function repeatInBackground(
  intervalMs: number,
  task: () => Promise<unknown>,
  logger: Logger,
  failure: string,
): () => void {
  const timer = setInterval(() => {
    task().catch((error: unknown) => logger.warn({ err: error }, failure));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** A client of another component, in-process or remote as the host decides; the component never knows which. */
export type Connect = <D extends ServiceDefinition>(definition: D, target: ServiceName) => RpcClient<D>;

export interface ComponentOptions extends Omit<ServiceStartOptions, 'now'> {
  /** The component's name: its logger's, and the audience its remote callers' service tokens name. */
  service: ServiceName;
  config: GrpcServiceConfig;
  migrations: Record<string, Migration>;
  /** How the component reaches the components it calls; only components that call others need it. */
  connect?: Connect;
}

export interface GrpcServiceOptions extends ComponentOptions {
  /** Public keys of the services the access tables admit. */
  servicePublicKeys: ServicePublicKeys;
}

/** What the service builds on its open store. */
export interface ServiceParts<Exposed extends object> {
  bindings: ServiceBinding[];
  /** Fields the "listening" line logs beside the address. */
  describe?: Record<string, unknown>;
  /**
   * Starts background work once the component serves; what it returns stops that work before the component stops taking
   * calls.
   */
  startBackground?(): () => Promise<void> | void;
  /**
   * Closes what calls in flight use (clients, pending writes), after the component has stopped taking calls and before
   * the store closes.
   */
  close?(): Promise<void> | void;
  /** Handles the running service offers its starter (tests, operators). */
  exposed: Exposed;
}

export interface BuildContext {
  db: Knex;
  redis: Redis | undefined;
  logger: Logger;
  connect: Connect;
}

/** A component with its store open, not yet taking calls. */
export interface OpenComponent<Exposed extends object = object> {
  service: ServiceName;
  db: Knex;
  logger: Logger;
  describe: Record<string, unknown>;
  exposed: Exposed;
  /** Its facade over the in-process transport, calling as `caller`. */
  client<D extends ServiceDefinition>(definition: D, caller: ServiceName, defaultDeadlineMs?: number): RpcClient<D>;
  /** Throws when the store (or Redis) does not answer: the health check. */
  probe(): Promise<void>;
  bindings: ServiceBinding[];
  /** Starts its background work (sweepers, reconcilers); once. */
  startBackground(): void;
  stopBackground(): Promise<void>;
  /** Closes clients and connections: once nothing calls the component any more. */
  close(): Promise<void>;
}

const noConnections: Connect = (_definition, target) => {
  throw new Error(`this component was given no way to reach ${target}`);
};

export async function openComponent<Exposed extends object>(
  options: ComponentOptions,
  build: (context: BuildContext) => Promise<ServiceParts<Exposed>>,
): Promise<OpenComponent<Exposed>> {
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
    parts = await build({ db, redis, logger, connect: options.connect ?? noConnections });
  } catch (error) {
    await closeConnections();
    throw error;
  }
  let stopBackground: (() => Promise<void> | void) | undefined;
  return {
    service,
    db,
    logger,
    describe: parts.describe ?? {},
    exposed: parts.exposed,
    bindings: parts.bindings,
    client(definition, caller, defaultDeadlineMs) {
      const binding = parts.bindings.find((candidate) => candidate.definition === definition);
      if (!binding) throw new Error(`the ${service} component does not implement that service`);
      return createLocalClient(definition, binding, { caller, defaultDeadlineMs, logger });
    },
    probe: async () => {
      await ping(db);
      if (redis) await redis.ping();
    },
    startBackground() {
      stopBackground ??= parts.startBackground?.() ?? (() => undefined);
    },
    async stopBackground() {
      await stopBackground?.();
    },
    async close() {
      await parts.close?.();
      await closeConnections();
    },
  };
}

export interface RunningGrpcService {
  address: string;
  db: Knex;
  stop(): Promise<void>;
}

/** A component in a process of its own, served over gRPC with service tokens (the per-service layout). */
export async function startGrpcService<Exposed extends object>(
  options: GrpcServiceOptions,
  build: (context: BuildContext) => Promise<ServiceParts<Exposed>>,
): Promise<RunningGrpcService & Exposed> {
  const { config, service } = options;
  if (!config.callerTokenPublicKey)
    throw new ConfigError('CALLER_TOKEN_PUBLIC_KEY is required to serve a component over gRPC');
  const component = await openComponent(options, build);
  let grpcServer: RunningGrpcServer;
  try {
    grpcServer = await startGrpcServer({
      address: config.address,
      logger: component.logger,
      serviceTokens: new ServiceTokenVerifier(service, options.servicePublicKeys),
      callerTokens: await CallerTokenVerifier.fromPem(config.callerTokenPublicKey),
      probe: component.probe,
      services: component.bindings,
    });
  } catch (error) {
    await component.close();
    throw error;
  }
  component.startBackground();
  component.logger.info({ address: grpcServer.address, ...component.describe }, `${service} listening`);
  const running: RunningGrpcService = {
    address: grpcServer.address,
    db: component.db,
    async stop() {
      await component.stopBackground();
      await grpcServer.shutdown();
      await component.close();
    },
  };
  return { ...component.exposed, ...running };
}
