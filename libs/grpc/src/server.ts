/**
 * A gRPC server with the standard health service, typed async handlers, AppError → status
 * translation, graceful shutdown, and access control on every RPC: the calling service must
 * present a valid service token and be listed in the RPC's access table, and the customer comes
 * only from the gateway's caller token. The health service stays open for kubelet probes.
 */
import { Server, ServerCredentials, type Deadline, type Metadata, type ServerUnaryCall, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AppError, isLockContention, isStoreOutage, storeBusy, storeUnavailable, unauthenticated } from '@storefront/errors';
import { CALLER_TOKEN_METADATA, type CallerTokenVerifier } from '@storefront/caller-token';
import { SERVICE_TOKEN_METADATA, type ServiceName, type ServiceTokenVerifier } from '@storefront/service-token';
import type { Logger } from '@storefront/logging';
import { HealthService } from './health';
import { SERVICE_NOT_ALLOWED, SERVICE_UNAUTHENTICATED, toStatusObject } from './status';
import type { AccessTable, RequestOf, ResponseOf, RpcAccess, ServiceDefinition } from './types';

const MAX_CONNECTION_AGE_MS = 60_000;
// Longer than the default client deadlines (5 s; 15 s for creating a checkout).
const MAX_CONNECTION_AGE_GRACE_MS = 30_000;

// Only the gateway resolves session cookies, so only its word on who the customer is counts.
const CUSTOMER_VOUCHER: ServiceName = 'gateway';

export interface CallContext {
  metadata: Metadata;
  /** The service that made the call, from its verified service token. */
  service: ServiceName;
  /** The customer the gateway vouches for, if any (never when the RPC's access says `none`). */
  caller(): Promise<string | undefined>;
  /** The customer the gateway vouches for; UNAUTHENTICATED when there is none. */
  requireCaller(): Promise<string>;
  /** True once the client cancelled the call or its deadline passed: nobody will see the answer. */
  abandoned(): boolean;
}

export type UnaryHandlers<D extends ServiceDefinition> = {
  [K in keyof D]: (request: RequestOf<D[K]>, context: CallContext) => Promise<ResponseOf<D[K]>>;
};

export interface ServiceBinding<D extends ServiceDefinition = ServiceDefinition> {
  /** Fully qualified service name, reported by the health service. */
  name: string;
  definition: D;
  access: AccessTable<D>;
  handlers: UnaryHandlers<D>;
}

export function bind<D extends ServiceDefinition>(name: string, definition: D, access: AccessTable<D>, handlers: UnaryHandlers<D>): ServiceBinding {
  return { name, definition, access, handlers } as unknown as ServiceBinding;
}

/** Every service some RPC of the table admits: the public keys the callee needs. */
export function callersOf<D extends ServiceDefinition>(access: AccessTable<D>): ServiceName[] {
  return [...new Set(Object.values<RpcAccess>(access).flatMap((rule) => rule.callers))];
}

export interface GrpcServerOptions {
  address: string;
  services: ServiceBinding[];
  logger: Logger;
  /** Verifies which service makes each call. */
  serviceTokens: ServiceTokenVerifier;
  /** Verifies the gateway's caller token naming the customer. */
  callerTokens: CallerTokenVerifier;
  /** Dependency check behind the health service, e.g. a database ping. */
  probe?: () => Promise<void>;
}

export interface RunningGrpcServer {
  /** The bound address, with the real port when 0 was asked for. */
  address: string;
  port: number;
  /** Stops taking calls, lets in-flight ones finish within the deadline, then forces. */
  shutdown(deadlineMs?: number): Promise<void>;
}

export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    'grpc.enable_channelz': 0,
    // Clients reconnect, and look their target up again, when a connection reaches this age, so
    // replicas added later get their share; calls in flight get the grace period to finish.
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
  });
  const health = new HealthService(options.services.map((s) => s.name), options.probe);
  server.addService(health.definition, health.implementation);
  for (const service of options.services) {
    server.addService(service.definition, implement(service, options));
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(options.address, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    ),
  );
  const host = options.address.slice(0, options.address.lastIndexOf(':'));
  return {
    address: `${host}:${port}`,
    port,
    shutdown: (deadlineMs = 10_000) => {
      health.stopServing();
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, deadlineMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

function implement(service: ServiceBinding, options: GrpcServerOptions): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(service.handlers)) {
    const path = service.definition[name]?.path ?? name;
    const access = service.access[name]!;
    implementation[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      authorise(call, access, path, options)
        .then((context) => handler(call.request, context))
        .then(
          (response) => callback(null, response),
          (error: unknown) => {
            if (error instanceof AppError) {
              callback(toStatusObject(error), null);
              return;
            }
            if (isLockContention(error)) {
              options.logger.warn({ err: error, rpc: path }, 'store lock contention outlasted the retries');
              callback(toStatusObject(storeBusy(shortName(service.name))), null);
              return;
            }
            if (isStoreOutage(error)) {
              options.logger.warn({ err: error, rpc: path }, 'store unavailable');
              callback(toStatusObject(storeUnavailable(shortName(service.name))), null);
              return;
            }
            options.logger.error({ err: error, rpc: path }, 'unhandled error in RPC handler');
            callback(toStatusObject(new AppError('internal', 'internal_error', 'An unexpected error occurred')), null);
          },
        );
    };
  }
  return implementation;
}

/** The call's context once its service token and the RPC's access rule admit it; throws AppError otherwise. */
async function authorise(call: ServerUnaryCall<unknown, unknown>, access: RpcAccess, rpc: string, options: GrpcServerOptions): Promise<CallContext> {
  const { metadata } = call;
  const service = await options.serviceTokens.callerOf(firstValue(metadata, SERVICE_TOKEN_METADATA));
  if (!service) {
    options.logger.warn({ rpc }, 'refused a call without a valid service token');
    throw new AppError('unauthenticated', SERVICE_UNAUTHENTICATED, 'The call carries no valid service token');
  }
  if (!access.callers.includes(service)) {
    options.logger.warn({ rpc, service }, 'refused a call from a service the RPC does not admit');
    throw new AppError('permission_denied', SERVICE_NOT_ALLOWED, `The ${service} service may not call ${rpc}`);
  }
  const customer =
    access.customer !== 'none' && service === CUSTOMER_VOUCHER
      ? await options.callerTokens.verify(firstValue(metadata, CALLER_TOKEN_METADATA))
      : undefined;
  if (access.customer === 'required' && !customer) throw unauthenticated();
  return {
    metadata,
    service,
    caller: async () => customer,
    requireCaller: async () => {
      if (!customer) throw unauthenticated();
      return customer;
    },
    abandoned: () => call.cancelled || deadlineMs(call.getDeadline()) <= Date.now(),
  };
}

/** `storefront.checkout.v1.CheckoutService` → `checkout`. */
function shortName(qualifiedService: string): string {
  return qualifiedService.split('.')[1] ?? qualifiedService;
}

function deadlineMs(deadline: Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

function firstValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}
