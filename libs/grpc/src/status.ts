/**
 * The single mapping between domain errors and gRPC status. A service sends its AppError as a
 * gRPC status plus the kind and code in trailing metadata; a client turns any gRPC failure back
 * into an AppError, so the gateway needs only the HTTP table in @storefront/errors.
 */
import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, type ErrorKind } from '@storefront/errors';

const KIND_TO_STATUS: Record<ErrorKind, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ABORTED,
  unprocessable: status.FAILED_PRECONDITION,
  rate_limited: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  provider_unavailable: status.UNAVAILABLE,
  timeout: status.DEADLINE_EXCEEDED,
  internal: status.INTERNAL,
};

// For failures that did not come from one of our handlers (transport errors, other servers).
const STATUS_TO_KIND: Partial<Record<status, ErrorKind>> = {
  [status.INVALID_ARGUMENT]: 'invalid_argument',
  [status.OUT_OF_RANGE]: 'invalid_argument',
  [status.UNAUTHENTICATED]: 'unauthenticated',
  [status.PERMISSION_DENIED]: 'permission_denied',
  [status.NOT_FOUND]: 'not_found',
  [status.ALREADY_EXISTS]: 'conflict',
  [status.ABORTED]: 'conflict',
  [status.FAILED_PRECONDITION]: 'conflict',
  [status.RESOURCE_EXHAUSTED]: 'rate_limited',
  [status.UNAVAILABLE]: 'unavailable',
  [status.DEADLINE_EXCEEDED]: 'timeout',
  [status.CANCELLED]: 'unavailable',
};

/** Codes of a callee refusing the calling service's token (see server.ts). */
export const SERVICE_UNAUTHENTICATED = 'service_unauthenticated';
export const SERVICE_NOT_ALLOWED = 'service_not_allowed';
// A callee refusing this process's own credentials is a deployment fault, not the end user's:
// it must not reach them as a 401 or 403. The callee logs the reason.
const SERVICE_CREDENTIAL_REFUSALS = new Set([SERVICE_UNAUTHENTICATED, SERVICE_NOT_ALLOWED]);

const KIND_KEY = 'x-error-kind';
const CODE_KEY = 'x-error-code';
const RETRY_AFTER_KEY = 'x-retry-after';
// gRPC's retry pushback; a negative value tells the client not to retry (see retry-policy.ts).
const RETRY_PUSHBACK_KEY = 'grpc-retry-pushback-ms';

export function toStatusObject(error: AppError): Partial<StatusObject> {
  const metadata = new Metadata();
  metadata.set(KIND_KEY, error.kind);
  metadata.set(CODE_KEY, error.code);
  if (error.retryAfterSeconds !== undefined) metadata.set(RETRY_AFTER_KEY, String(error.retryAfterSeconds));
  // A handler's answer is final, UNAVAILABLE included: its own dependency (the payment provider,
  // the store) failed, and another replica would fail the same way after the same wait. Retries
  // are for a backend that went away, which grpc-js reports without this pushback.
  metadata.set(RETRY_PUSHBACK_KEY, '-1');
  return { code: KIND_TO_STATUS[error.kind], details: error.detail, metadata };
}

export function fromServiceError(error: ServiceError, target: string): AppError {
  const header = (key: string) => {
    const value = error.metadata?.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  };
  const kind = header(KIND_KEY) as ErrorKind | undefined;
  const code = header(CODE_KEY);
  if (code && SERVICE_CREDENTIAL_REFUSALS.has(code))
    return new AppError('internal', 'internal_error', 'An unexpected error occurred');
  if (kind && code && kind in KIND_TO_STATUS) {
    const retryAfter = header(RETRY_AFTER_KEY);
    return new AppError(kind, code, error.details, retryAfter === undefined ? undefined : Number(retryAfter));
  }
  const fallback = STATUS_TO_KIND[error.code as status] ?? 'internal';
  switch (fallback) {
    case 'unavailable':
      return new AppError(
        'unavailable',
        'service_unavailable',
        `The ${target} service is unavailable; try again shortly`,
      );
    case 'timeout':
      return new AppError('timeout', 'timeout', `The ${target} service did not answer in time`);
    case 'internal':
      return new AppError('internal', 'internal_error', 'An unexpected error occurred');
    default:
      return new AppError(fallback, fallback, error.details);
  }
}
