/**
 * The one error type of every domain. A kind says how a failure is classified (and so which
 * gRPC and HTTP status it gets); a code is the stable snake_case `error` clients see; the
 * detail is for humans and names the field or thing at fault.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'provider_unavailable'
  | 'timeout'
  | 'internal';

export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${detail}`);
  }
}

export const invalidArgument = (detail: string, code = 'invalid_request') =>
  new AppError('invalid_argument', code, detail);
export const unauthenticated = (detail = 'A valid session is required', code = 'unauthorized') =>
  new AppError('unauthenticated', code, detail);
export const notFound = (detail: string, code = 'not_found') => new AppError('not_found', code, detail);
export const conflict = (code: string, detail: string) => new AppError('conflict', code, detail);

/** HTTP status per kind (decision 0002). */
export const HTTP_STATUS: Record<ErrorKind, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  provider_unavailable: 502,
  timeout: 504,
  internal: 500,
};

/** The contract's Error shape. */
export interface ErrorBody {
  success: false;
  error: string;
  detail: string;
}

export function errorBody(code: string, detail: string): ErrorBody {
  return { success: false, error: code, detail };
}
