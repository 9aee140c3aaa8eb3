/**
 * The sandbox's JSON API (`/v0.1/...`), served straight from node:http: it stands in for SumUp
 * in every checkout the bench makes, and Express's router, request decoration and body parser
 * cost it more than the work each call does. The hosted page and the control switch stay on
 * Express. Each request still gets its server span and the trace context it arrived with
 * (traceDirectRequest), as the HTTP instrumentation gives the rest.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@storefront/logging';
import { ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { traceDirectRequest } from '@storefront/telemetry';
import { CheckoutBook, CheckoutNotPending, DuplicateCheckout, RefundRefused } from './checkouts';
import type { SandboxControl } from './control';

const API_PREFIX = '/v0.1';
const MAX_BODY_BYTES = 64 * 1024;

export interface SandboxApiContext {
  book: CheckoutBook;
  control: SandboxControl;
  merchantCode: string;
  apiKey: string;
  logger: Logger;
  /** The base of hosted checkout URLs, known once the server listens. */
  publicUrl(): string;
}

interface ApiRequest {
  query: URLSearchParams;
  /** The parsed JSON body; undefined without a JSON content type. */
  body: unknown;
}

type Reply = (status: number, body?: unknown, contentType?: string) => void;
type Handler = (request: ApiRequest, reply: Reply, id?: string) => void;

interface Route {
  /** The route's name in spans. */
  name: string;
  handler: Handler;
  /** The path's id, decoded. */
  id?: string;
}

/** SumUp's error body. */
export function apiErrorBody(errorCode: string, message: string, param?: string): Record<string, string> {
  return { error_code: errorCode, message, ...(param ? { param } : {}) };
}

export function isApiRequest(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  return (
    url.startsWith(API_PREFIX) &&
    (url.length === API_PREFIX.length || url[API_PREFIX.length] === '/' || url[API_PREFIX.length] === '?')
  );
}

/** The request handler for API requests (isApiRequest). */
export function sandboxApi(context: SandboxApiContext): (request: IncomingMessage, response: ServerResponse) => void {
  const { book, control, logger } = context;
  const bearer = `Bearer ${context.apiKey}`;
  const apiError = (reply: Reply, status: number, errorCode: string, message: string, param?: string) =>
    reply(status, apiErrorBody(errorCode, message, param));

  const createCheckout: Handler = ({ body: sent }, reply) => {
    const body = (sent ?? {}) as Record<string, unknown>;
    if (typeof body.checkout_reference === 'string') control.countCreate(body.checkout_reference);
    const problem = invalidCreate(body, context.merchantCode);
    if (problem) return apiError(reply, 400, 'INVALID', problem.message, problem.param);
    try {
      const checkout = book.create({
        checkout_reference: body.checkout_reference as string,
        amount: body.amount as number,
        currency: body.currency as string,
        merchant_code: body.merchant_code as string,
        description: optionalString(body.description),
        return_url: optionalString(body.return_url),
        redirect_url: optionalString(body.redirect_url),
        valid_until: optionalString(body.valid_until),
        hostedCheckoutBase:
          (body.hosted_checkout as { enabled?: unknown } | undefined)?.enabled === true
            ? context.publicUrl()
            : undefined,
      });
      if (control.behaviour === 'hang_after_create') return; // created, but the answer is lost
      reply(201, checkout);
    } catch (error) {
      if (!(error instanceof DuplicateCheckout)) throw error;
      apiError(
        reply,
        409,
        'DUPLICATED_CHECKOUT',
        'Checkout with this checkout reference and pay to email already exists',
      );
    }
  };

  const listCheckouts: Handler = ({ query }, reply) => {
    const reference = query.get('checkout_reference') ?? undefined;
    reply(200, control.behaviour === 'unlisted' && reference !== undefined ? [] : book.list(reference));
  };

  const readCheckout: Handler = (_request, reply, id) => {
    const checkout = book.get(id!);
    if (!checkout) return apiError(reply, 404, 'NOT_FOUND', 'Resource not found');
    reply(200, checkout);
  };

  const deactivateCheckout: Handler = (_request, reply, id) => {
    if (!book.get(id!)) return apiError(reply, 404, 'NOT_FOUND', 'Resource not found');
    try {
      reply(200, book.deactivate(id!));
    } catch (error) {
      if (!(error instanceof CheckoutNotPending)) throw error;
      apiError(reply, 409, 'CHECKOUT_PROCESSED', `The checkout is ${error.message} and cannot be deactivated`);
    }
  };

  // SumUp's refund: the whole transaction without an amount, else that much; 204 without a body.
  const refundTransaction: Handler = ({ body }, reply, id) => {
    const amount = (body as { amount?: unknown } | undefined)?.amount;
    if (amount !== undefined && (typeof amount !== 'number' || !Number.isFinite(amount)))
      return apiError(reply, 400, 'INVALID', 'amount must be a number', 'amount');
    if (control.behaviour === 'refuse_refund')
      return apiError(reply, 409, 'REFUND_NOT_ALLOWED', 'The sandbox was told to refuse refunds');
    if (control.behaviour === 'hang_refund') return; // lost before it was carried out
    try {
      book.refund(id!, amount as number | undefined);
    } catch (error) {
      if (!(error instanceof RefundRefused)) throw error;
      return apiError(reply, error.status, error.errorCode, error.message);
    }
    if (control.behaviour === 'hang_after_refund') return; // refunded, but the answer is lost
    reply(204);
  };

  // A transaction by id, with its refunded amount and refund events.
  const readTransaction: Handler = ({ query }, reply) => {
    const id = query.get('id');
    const transaction = id === null ? undefined : book.transaction(id);
    if (!transaction) return apiError(reply, 404, 'NOT_FOUND', 'Resource not found');
    reply(200, { ...transaction, simple_status: transaction.refunded_amount > 0 ? 'REFUNDED' : transaction.status });
  };

  /** The route of a method and path below the prefix; undefined for none (an id that does not decode included). */
  const route = (method: string, path: string): Route | undefined => {
    const read = method === 'GET' || method === 'HEAD';
    if (path === '/checkouts') {
      if (method === 'POST') return { name: '/v0.1/checkouts', handler: createCheckout };
      return read ? { name: '/v0.1/checkouts', handler: listCheckouts } : undefined;
    }
    if (path === '/me/transactions')
      return read ? { name: '/v0.1/me/transactions', handler: readTransaction } : undefined;
    const checkout = /^\/checkouts\/([^/]+)$/.exec(path);
    if (checkout) {
      const handler = read ? readCheckout : method === 'DELETE' ? deactivateCheckout : undefined;
      const id = decoded(checkout[1]!);
      return handler && id !== undefined ? { name: '/v0.1/checkouts/:id', handler, id } : undefined;
    }
    const refund = /^\/me\/refund\/([^/]+)$/.exec(path);
    const id = refund ? decoded(refund[1]!) : undefined;
    return method === 'POST' && id !== undefined
      ? { name: '/v0.1/me/refund/:txn_id', handler: refundTransaction, id }
      : undefined;
  };

  /** Counts, switches and the key come before the body is read, as SumUp's own front would. */
  const serve = (request: IncomingMessage, reply: Reply, found: Route | undefined, query: URLSearchParams): void => {
    if (found?.handler === readCheckout) control.countRead(found.id!);
    if (found?.handler === refundTransaction) control.countRefund(found.id!);
    switch (control.behaviour) {
      case 'fail':
        reply(
          500,
          { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'The sandbox was told to fail' },
          'application/problem+json; charset=utf-8',
        );
        return;
      case 'hang':
        return; // never answered; stop() closes the connection
      case 'refuse':
        request.socket.destroy();
        return;
    }
    if (request.headers.authorization !== bearer)
      return apiError(reply, 401, 'NOT_AUTHORIZED', 'A valid bearer API key is required');
    readJsonBody(request, (error, body) => {
      if (error) return apiError(reply, error.status, error.errorCode, error.message);
      if (!found) return apiError(reply, 404, 'NOT_FOUND', 'Resource not found');
      found.handler({ query, body }, reply, found.id);
    });
  };

  return (request, response) => {
    const url = request.url!;
    const queryAt = url.indexOf('?');
    const pathname = url.slice(API_PREFIX.length, queryAt < 0 ? undefined : queryAt);
    const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    const query = new URLSearchParams(queryAt < 0 ? '' : url.slice(queryAt + 1));
    const reply = (status: number, body?: unknown, contentType = 'application/json; charset=utf-8') => {
      if (body === undefined) {
        response.writeHead(status).end();
        return;
      }
      const text = JSON.stringify(body);
      response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) }).end(text);
    };
    const found = route(request.method!, path);
    traceDirectRequest(request, response, found?.name ?? `${API_PREFIX}/*`, () => {
      try {
        serve(request, reply, found, query);
      } catch (error) {
        logger.error({ err: error }, 'unexpected sandbox error');
        if (!response.headersSent) reply(500, apiErrorBody('INTERNAL_ERROR', 'An unexpected error occurred'));
      }
    });
  };
}

class BodyRefused {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly message: string,
  ) {}
}

/**
 * The body as express.json would give it: parsed only under a JSON content type (`{}` when
 * empty), an object or array at the top, at most 64 KiB.
 */
function readJsonBody(request: IncomingMessage, done: (error: BodyRefused | undefined, body?: unknown) => void): void {
  const isJson = /^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '');
  if (!isJson) {
    request.resume();
    request.once('end', () => done(undefined, undefined));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  request.once('end', () => {
    if (size > MAX_BODY_BYTES)
      return done(new BodyRefused(413, 'INVALID', `The body is larger than ${MAX_BODY_BYTES} bytes`));
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return done(undefined, {});
    if (!/^\s*[{[]/.test(text)) return done(new BodyRefused(400, 'INVALID', 'The body is not valid JSON'));
    try {
      done(undefined, JSON.parse(text));
    } catch {
      done(new BodyRefused(400, 'INVALID', 'The body is not valid JSON'));
    }
  });
}

function decoded(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function invalidCreate(
  body: Record<string, unknown>,
  merchantCode: string,
): { message: string; param: string } | undefined {
  const reference = body.checkout_reference;
  if (typeof reference !== 'string' || reference === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH) {
    return {
      param: 'checkout_reference',
      message: `checkout_reference must be a string of 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters`,
    };
  }
  if (typeof body.amount !== 'number' || !(body.amount > 0))
    return { param: 'amount', message: 'amount must be a number greater than 0' };
  if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency))
    return { param: 'currency', message: 'currency must be an ISO 4217 code' };
  if (body.merchant_code !== merchantCode)
    return { param: 'merchant_code', message: 'merchant_code does not name this merchant' };
  for (const field of ['description', 'return_url', 'redirect_url', 'valid_until']) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string')
      return { param: field, message: `${field} must be a string` };
  }
  if (typeof body.valid_until === 'string' && Number.isNaN(Date.parse(body.valid_until)))
    return { param: 'valid_until', message: 'valid_until must be a date-time' };
  return undefined;
}
