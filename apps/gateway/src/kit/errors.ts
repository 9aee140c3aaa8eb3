/**
 * Every failure leaves the gateway in the contract's Error shape: domain errors with their
 * mapped status, refused request bodies as 400/413/415, unknown paths 404, wrong methods 405,
 * and anything unexpected as a 500 that reveals nothing internal.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, HTTP_STATUS, errorBody } from '@storefront/errors';
import type { Logger } from '@storefront/logging';

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

function answerFor(
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = JSON_TYPE,
): ErrorAnswer {
  return { status, headers, body: Buffer.from(JSON.stringify(errorBody(code, detail))) };
}

function appErrorAnswer(error: AppError): ErrorAnswer {
  const headers =
    error.retryAfterSeconds === undefined
      ? JSON_TYPE
      : { ...JSON_TYPE, 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) };
  return answerFor(HTTP_STATUS[error.kind], error.code, error.detail, headers);
}

function send(res: Response, { status, headers, body }: ErrorAnswer): void {
  res.status(status).set(headers).end(body);
}

export function sendError(res: Response, error: AppError): void {
  send(res, appErrorAnswer(error));
}

/**
 * The answer for a failure of a route: a refused body, its mapped status for an AppError, else a 500 that reveals
 * nothing. Also used by direct-routes.ts.
 */
export function errorAnswer(error: unknown, logger: Logger, path: string): ErrorAnswer {
  const refused = bodyRefusal(error);
  if (refused) return answerFor(refused.status, refused.code, refused.detail);
  if (error instanceof AppError) {
    if (error.kind === 'internal') logger.error({ err: error, path }, 'internal error from a service');
    return appErrorAnswer(error);
  }
  logger.error({ err: error, path }, 'unexpected error');
  return answerFor(500, 'internal_error', 'An unexpected error occurred');
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, new AppError('not_found', 'not_found', `No resource at ${req.method} ${req.path}`));
};

/** For `app.route(path).get(...).all(methodNotAllowed('GET'))`. */
export function methodNotAllowed(...allowed: string[]): RequestHandler {
  const allow = [...new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])])].join(', ');
  return (req, res) => {
    res.setHeader('Allow', allow);
    res.status(405).json(errorBody('method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${allow}`));
  };
}

interface BodyParserError {
  type?: string;
  limit?: number;
}

/** A request body the gateway will not read, with the answer a route gives unless it has its own rule. */
export class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** The refusal behind a body-parsing failure (ours or the JSON parser's), if that is what the error is. */
export function bodyRefusal(error: unknown): BodyRefused | undefined {
  if (error instanceof BodyRefused) return error;
  const parserError = error as BodyParserError | undefined;
  switch (parserError?.type) {
    case 'entity.too.large':
      return new BodyRefused(413, 'payload_too_large', `Request body exceeds ${parserError.limit} bytes`);
    case 'entity.parse.failed':
      return new BodyRefused(400, 'malformed_json', 'Request body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new BodyRefused(415, 'unsupported_media_type', 'Request body must be UTF-8 JSON');
    case 'request.aborted':
      return new BodyRefused(400, 'request_aborted', 'The request body was not received completely');
  }
  return undefined;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    send(res, errorAnswer(error, logger, req.path));
  };
}
