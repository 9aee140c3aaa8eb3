/**
 * Promise-based unary clients built from a service definition. Every call carries a deadline,
 * this process's service token and, when acting for a customer, the caller token; failures
 * arrive as AppError.
 */
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { CALLER_TOKEN_METADATA, STAFF_TOKEN_METADATA, type StaffIdentity } from '@storefront/caller-token';
import { SERVICE_TOKEN_METADATA, type ServiceName, type ServiceTokenSigner } from '@storefront/service-token';
import { serviceConfigFor } from './retry-policy';
import { fromServiceError } from './status';
import type { RequestOf, ResponseOf, ServiceDefinition } from './types';

/**
 * `address` may name several backends (a `dns:///` name, an `ipv4:` list): calls go round-robin
 * over all of them. A backend that went away is tried again within a second of coming back, after
 * an outage of any length; a DNS name is looked up again at most once a second when a backend is
 * lost or a server ends an aged connection, so pods that come and go are found.
 */
const CHANNEL_OPTIONS = {
  // Answers come from the platform's own services; a certificate file or a product photo (10 MiB) may pass the
  // 4 MiB default.
  'grpc.max_receive_message_length': 12 * 1024 * 1024,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.enable_channelz': 0,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.dns_min_time_between_resolutions_ms': 1000,
};

export interface CallOptions {
  /**
   * The customer (user id) this call acts for, as the gateway resolved it from the session. A
   * remote call carries it as a caller token the client signs; an in-process call as the value.
   */
  customer?: string;
  /**
   * The console staff member this call acts for, as the gateway resolved it from the staff session; carried like the
   * customer.
   */
  staff?: StaffIdentity;
  deadlineMs?: number;
}

/** Signs the caller token that names a customer (or a staff member) to a remote service (the gateway's key). */
export interface CustomerTokenSigner {
  sign(userId: string): Promise<string>;
  signStaff(staff: StaffIdentity): Promise<string>;
}

export type RpcClient<D extends ServiceDefinition> = {
  [K in keyof D]: (request: RequestOf<D[K]>, options?: CallOptions) => Promise<ResponseOf<D[K]>>;
} & { close(): void };

export interface ClientOptions {
  /** The callee's service name: used in error details and as the service token's audience. */
  target: ServiceName;
  defaultDeadlineMs?: number;
  /** Signs this process's service token onto every call; only health probes go without. */
  signer?: ServiceTokenSigner;
  /** Signs the customer of a call into a caller token; a call naming a customer without it is refused. */
  customerTokens?: CustomerTokenSigner;
}

export function createRpcClient<D extends ServiceDefinition>(
  definition: D,
  address: string,
  { target, defaultDeadlineMs = 5000, signer, customerTokens }: ClientOptions,
): RpcClient<D> {
  const channel = new Client(address, credentials.createInsecure(), {
    ...CHANNEL_OPTIONS,
    'grpc.service_config': serviceConfigFor(definition),
  });
  // Connect to every backend now: a channel left idle until its first calls sends that whole
  // burst to whichever backend happens to connect first.
  channel.getChannel().getConnectivityState(true);
  const methods: Record<string, unknown> = { close: () => channel.close() };
  for (const [name, method] of Object.entries(definition)) {
    methods[name] = async (request: unknown, options: CallOptions = {}) => {
      const metadata = new Metadata();
      if (signer) metadata.set(SERVICE_TOKEN_METADATA, await signer.tokenFor(target));
      if (options.customer) {
        if (!customerTokens)
          throw new Error(`this client cannot name a customer to the ${target} service: it has no caller-token key`);
        metadata.set(CALLER_TOKEN_METADATA, await customerTokens.sign(options.customer));
      }
      if (options.staff) {
        if (!customerTokens)
          throw new Error(
            `this client cannot name a staff member to the ${target} service: it has no caller-token key`,
          );
        metadata.set(STAFF_TOKEN_METADATA, await customerTokens.signStaff(options.staff));
      }
      return new Promise((resolve, reject) => {
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
    };
  }
  return methods as RpcClient<D>;
}
