/**
 * A gRPC server with the standard health service, typed async handlers, AppError → status
 * translation, graceful shutdown, and access control on every RPC: the calling service must
 * present a valid service token and be listed in the RPC's access table, and the customer comes
 * only from the gateway's caller token. The health service stays open for kubelet probes.
 */
import {
  Server,
  ServerCredentials,
  type Deadline,
  type Metadata,
  type ServerUnaryCall,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { AppError } from '@storefront/errors';
import { CALLER_TOKEN_METADATA, STAFF_TOKEN_METADATA, type CallerTokenVerifier } from '@storefront/caller-token';
import { SERVICE_TOKEN_METADATA, type ServiceName, type ServiceTokenVerifier } from '@storefront/service-token';
import type { Logger } from '@storefront/logging';
import { HealthService } from './health';
import { SERVICE_UNAUTHENTICATED, toStatusObject } from './status';
import {
  admitService,
  asCallerError,
  callContext,
  shortName,
  vouchesForCustomer,
  vouchesForStaff,
  type CallContext,
} from './access';
import type { AccessTable, RequestOf, ResponseOf, RpcAccess, ServiceDefinition } from './types';

const MAX_CONNECTION_AGE_MS = 60_000;
// Longer than the default client deadlines (5 s; 15 s for creating a checkout).
const MAX_CONNECTION_AGE_GRACE_MS = 30_000;

export type UnaryHandlers<D extends ServiceDefinition> = {
  [K in keyof D]: (request: RequestOf<D[K]>, context: CallContext) => Promise<ResponseOf<D[K]>>;
};

export interface ServiceBinding<D extends ServiceDefinition = ServiceDefinition> {
  /** Fully qualified service name, reported by the health service. */
  name: string;
  definition: D;
  access: AccessTable<D>;
  handlers: UnaryHandlers<D>;
  /** The largest request the service takes, when more than the default 4 MiB (e.g. a file upload). */
  maxRequestBytes?: number;
}

/** The largest request a server takes unless a service it serves asks for more. */
export const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export function bind<D extends ServiceDefinition>(
  name: string,
  definition: D,
  access: AccessTable<D>,
  handlers: UnaryHandlers<D>,
  options: { maxRequestBytes?: number } = {},
): ServiceBinding {
  return { name, definition, access, handlers, ...options } as unknown as ServiceBinding;
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
    'grpc.max_receive_message_length': Math.max(
      DEFAULT_MAX_REQUEST_BYTES,
      ...options.services.map((service) => service.maxRequestBytes ?? 0),
    ),
    'grpc.enable_channelz': 0,
    // Clients reconnect, and look their target up again, when a connection reaches this age, so
    // replicas added later get their share; calls in flight get the grace period to finish.
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
  });
  const health = new HealthService(
    options.services.map((s) => s.name),
    options.probe,
  );
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
          (error: unknown) =>
            callback(toStatusObject(asCallerError(error, shortName(service.name), path, options.logger)), null),
        );
    };
  }
  return implementation;
}

/** The call's context once its service token and the RPC's access rule admit it; throws AppError otherwise. */
async function authorise(
  call: ServerUnaryCall<unknown, unknown>,
  access: RpcAccess,
  rpc: string,
  options: GrpcServerOptions,
): Promise<CallContext> {
  const { metadata } = call;
  const service = await options.serviceTokens.callerOf(firstValue(metadata, SERVICE_TOKEN_METADATA));
  if (!service) {
    options.logger.warn({ rpc }, 'refused a call without a valid service token');
    throw new AppError('unauthenticated', SERVICE_UNAUTHENTICATED, 'The call carries no valid service token');
  }
  admitService(access, service, rpc, options.logger);
  const customer = vouchesForCustomer(access, service)
    ? await options.callerTokens.verify(firstValue(metadata, CALLER_TOKEN_METADATA))
    : undefined;
  const staff = vouchesForStaff(access, service)
    ? await options.callerTokens.verifyStaff(firstValue(metadata, STAFF_TOKEN_METADATA))
    : undefined;
  return callContext(
    access,
    service,
    customer,
    () => call.cancelled || deadlineMs(call.getDeadline()) <= Date.now(),
    staff,
  );
}

function deadlineMs(deadline: Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

function firstValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}
