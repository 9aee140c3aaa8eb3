/**
 * Promise-based unary clients built from a service definition. Every call carries a deadline
 * and, when acting for a customer, the caller token; failures arrive as AppError.
 */
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { CALLER_TOKEN_METADATA } from '@storefront/caller-token';
import { fromServiceError } from './status';
import type { RequestOf, ResponseOf, ServiceDefinition } from './types';

export interface CallOptions {
  /** Signed caller token of the customer this call acts for. */
  callerToken?: string;
  deadlineMs?: number;
}

export type RpcClient<D extends ServiceDefinition> = {
  [K in keyof D]: (request: RequestOf<D[K]>, options?: CallOptions) => Promise<ResponseOf<D[K]>>;
} & { close(): void };

export interface ClientOptions {
  /** Name used in error details, e.g. "inventory". */
  target: string;
  defaultDeadlineMs?: number;
}

export function createRpcClient<D extends ServiceDefinition>(
  definition: D,
  address: string,
  { target, defaultDeadlineMs = 5000 }: ClientOptions,
): RpcClient<D> {
  const channel = new Client(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.enable_channelz': 0,
    'grpc.keepalive_timeout_ms': 10_000,
  });
  const methods: Record<string, unknown> = { close: () => channel.close() };
  for (const [name, method] of Object.entries(definition)) {
    methods[name] = (request: unknown, options: CallOptions = {}) =>
      new Promise((resolve, reject) => {
        const metadata = new Metadata();
        if (options.callerToken) metadata.set(CALLER_TOKEN_METADATA, options.callerToken);
        const deadline = Date.now() + (options.deadlineMs ?? defaultDeadlineMs);
        channel.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          metadata,
          { deadline },
          (error: ServiceError | null, response?: unknown) =>
            error ? reject(fromServiceError(error, target)) : resolve(response),
        );
      });
  }
  return methods as RpcClient<D>;
}
