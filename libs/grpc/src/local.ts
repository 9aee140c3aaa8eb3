/**
 * The in-process transport: a client with the same interface as the gRPC one that calls the
 * component's handler directly, without serialisation. The calling service is fixed when the
 * host builds the client, so it needs no token; the access table, the customer rule, the
 * deadline and the error kinds are the ones the gRPC server applies.
 */
import { SpanKind, SpanStatusCode, TraceFlags, trace, type Span } from '@opentelemetry/api';
import { AppError } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { ServiceName } from '@storefront/service-token';
import { admitService, asCallerError, callContext, shortName, vouchesForCustomer, vouchesForStaff } from './access';
import type { CallOptions, RpcClient } from './client';
import type { ServiceBinding } from './server';
import { SERVICE_NOT_ALLOWED } from './status';
import type { ServiceDefinition } from './types';

const tracer = trace.getTracer('storefront-local-rpc');

export interface LocalClientOptions {
  /** The service this client calls for, as the access tables name it. */
  caller: ServiceName;
  defaultDeadlineMs?: number;
  /** The callee's logger: refusals and unexpected failures are logged as the gRPC server logs them. */
  logger: Logger;
}

/** One call as the callee sees it: what the local client does before the caller-side translation. */
export async function callLocally(
  binding: ServiceBinding,
  rpc: string,
  request: unknown,
  caller: ServiceName,
  options: CallOptions & { deadlineMs: number; logger: Logger },
): Promise<unknown> {
  const method = binding.definition[rpc];
  const access = binding.access[rpc];
  const handler = binding.handlers[rpc];
  if (!method || !access || !handler) throw new Error(`${binding.name} has no RPC ${rpc}`);
  const service = shortName(binding.name);
  const deadline = Date.now() + options.deadlineMs;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  // Named and labelled as the gRPC instrumentation names a call, so traces and RPC metrics read the same in both
  // layouts.
  const [, qualifiedService, methodName] = method.path.split('/');
  const attributes = { 'rpc.system': 'local', 'rpc.service': qualifiedService, 'rpc.method': methodName };
  const call = async (span?: Span) => {
    try {
      admitService(access, caller, method.path, options.logger);
      const customer = vouchesForCustomer(access, caller) ? options.customer : undefined;
      const staff = vouchesForStaff(access, caller) ? options.staff : undefined;
      const context = callContext(access, caller, customer, () => timedOut || Date.now() >= deadline, staff);
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new AppError('timeout', 'timeout', `The ${service} service did not answer in time`));
        }, options.deadlineMs);
      });
      return await Promise.race([handler(request, context), expired]);
    } catch (error) {
      const failure = asCallerError(error, service, method.path, options.logger);
      span?.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
      throw failure;
    } finally {
      clearTimeout(timer);
      span?.end();
    }
  };
  // Inside a trace that is not sampled the span would be dropped, and the spans below decide
  // alike with or without it: the call runs without one.
  const parent = trace.getActiveSpan()?.spanContext();
  if (parent && !(parent.traceFlags & TraceFlags.SAMPLED)) return call();
  return tracer.startActiveSpan(`${qualifiedService}/${methodName}`, { kind: SpanKind.INTERNAL, attributes }, call);
}

/** `definition` types the client; it must be the binding's own. */
export function createLocalClient<D extends ServiceDefinition>(
  definition: D,
  binding: ServiceBinding,
  { caller, defaultDeadlineMs = 5000, logger }: LocalClientOptions,
): RpcClient<D> {
  if (binding.definition !== definition)
    throw new Error(`${binding.name} does not implement the service definition asked for`);
  const methods: Record<string, unknown> = { close: () => undefined };
  for (const rpc of Object.keys(definition)) {
    methods[rpc] = async (request: unknown, options: CallOptions = {}) => {
      try {
        return await callLocally(binding, rpc, request, caller, {
          ...options,
          deadlineMs: options.deadlineMs ?? defaultDeadlineMs,
          logger,
        });
      } catch (error) {
        // As over gRPC: the callee refusing this process's own identity is a deployment fault,
        // never the end user's 403.
        if (error instanceof AppError && error.code === SERVICE_NOT_ALLOWED)
          throw new AppError('internal', 'internal_error', 'An unexpected error occurred');
        throw error;
      }
    };
  }
  return methods as RpcClient<D>;
}
