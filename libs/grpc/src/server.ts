/**
 * A gRPC server with the standard health service, typed async handlers, AppError → status
 * translation, caller-token verification and graceful shutdown.
 */
import { Server, ServerCredentials, type Deadline, type Metadata, type ServerUnaryCall, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AppError, unauthenticated } from '@storefront/errors';
import { CALLER_TOKEN_METADATA, type CallerTokenVerifier } from '@storefront/caller-token';
import type { Logger } from '@storefront/logging';
import { HealthService } from './health';
import { toStatusObject } from './status';
import type { RequestOf, ResponseOf, ServiceDefinition } from './types';

export interface CallContext {
  metadata: Metadata;
  /** The customer the gateway vouches for, if any. */
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
  handlers: UnaryHandlers<D>;
}

export function bind<D extends ServiceDefinition>(name: string, definition: D, handlers: UnaryHandlers<D>): ServiceBinding {
  return { name, definition, handlers } as unknown as ServiceBinding;
}

export interface GrpcServerOptions {
  address: string;
  services: ServiceBinding[];
  logger: Logger;
  verifier?: CallerTokenVerifier;
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
  const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024, 'grpc.enable_channelz': 0 });
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
    implementation[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      handler(call.request, contextOf(call, options.verifier)).then(
        (response) => callback(null, response),
        (error: unknown) => {
          if (error instanceof AppError) {
            callback(toStatusObject(error), null);
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

function contextOf(call: ServerUnaryCall<unknown, unknown>, verifier: CallerTokenVerifier | undefined): CallContext {
  const { metadata } = call;
  let resolved: Promise<string | undefined> | undefined;
  const caller = () => {
    if (!resolved) {
      const token = metadata.get(CALLER_TOKEN_METADATA)[0];
      resolved = verifier && typeof token === 'string' ? verifier.verify(token) : Promise.resolve(undefined);
    }
    return resolved;
  };
  return {
    metadata,
    caller,
    requireCaller: async () => {
      const userId = await caller();
      if (!userId) throw unauthenticated();
      return userId;
    },
    abandoned: () => call.cancelled || deadlineMs(call.getDeadline()) <= Date.now(),
  };
}

function deadlineMs(deadline: Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}
