/**
 * The sandbox payment provider: the subset of SumUp's checkout API the shop uses
 * (create, read, list by reference, deactivate; refund a transaction and read it back), a hosted payment page where a person clicks
 * Pay or Decline, status-change notifications to the checkout's `return_url`, and a control
 * switch for tests. For local runs and tests only: checkouts live in memory.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { createLogger, type Logger } from '@storefront/logging';
import { ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { PaymentSandboxConfig } from './config';
import { CheckoutBook, CheckoutNotPending, DuplicateCheckout, RefundRefused, type CheckoutStatus, type NewCheckout, type SandboxCheckout } from './checkouts';
import { BEHAVIOURS, SandboxControl, type Behaviour } from './control';
import { renderHostedPage, renderMessagePage } from './hosted-page';

export interface PaymentSandbox {
  url: string;
  control: SandboxControl;
  /**
   * Puts a checkout straight into the book, in any state and for any merchant, bypassing the
   * API's checks: how tests give the shop a provider checkout it did not make.
   */
  prepareCheckout(input: NewCheckout, status?: CheckoutStatus): SandboxCheckout;
  stop(): Promise<void>;
}

export interface SandboxOptions {
  logger?: Logger;
  /** The clock the control advances; tests may inject their own. */
  now?: () => number;
}

const WEBHOOK_TIMEOUT_MS = 5000;

export async function startPaymentSandbox(config: PaymentSandboxConfig, options: SandboxOptions = {}): Promise<PaymentSandbox> {
  const logger = options.logger ?? createLogger('payment-sandbox', config.logLevel);
  const control = new SandboxControl(options.now);
  const book = new CheckoutBook(control.now);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const server = http.createServer(app);
  let publicUrl = config.publicUrl ?? '';

  const apiError = (res: Response, status: number, errorCode: string, message: string, param?: string) =>
    res.status(status).json({ error_code: errorCode, message, ...(param ? { param } : {}) });

  const requireBearer: RequestHandler = (req, res, next) => {
    if (req.headers.authorization !== `Bearer ${config.apiKey}`) {
      apiError(res, 401, 'NOT_AUTHORIZED', 'A valid bearer API key is required');
      return;
    }
    next();
  };

  const misbehave: RequestHandler = (req, res, next) => {
    switch (control.behaviour) {
      case 'fail':
        res.status(500).type('application/problem+json').send(JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'The sandbox was told to fail' }));
        return;
      case 'hang':
        return; // never answered; stop() closes the connection
      case 'refuse':
        req.socket.destroy();
        return;
      default:
        next();
    }
  };

  const countReads: RequestHandler = (req, _res, next) => {
    const read = req.method === 'GET' ? /^\/checkouts\/([^/]+)$/.exec(req.path) : null;
    if (read) control.countRead(decodeURIComponent(read[1]!));
    const refund = req.method === 'POST' ? /^\/me\/refund\/([^/]+)$/.exec(req.path) : null;
    if (refund) control.countRefund(decodeURIComponent(refund[1]!));
    next();
  };

  const api = express.Router();
  api.use(countReads, misbehave, requireBearer, express.json({ limit: '64kb' }));

  api.post('/checkouts', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.checkout_reference === 'string') control.countCreate(body.checkout_reference);
    const problem = invalidCreate(body, config.merchantCode);
    if (problem) return apiError(res, 400, 'INVALID', problem.message, problem.param);
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
        hostedCheckoutBase: (body.hosted_checkout as { enabled?: unknown } | undefined)?.enabled === true ? publicUrl : undefined,
      });
      if (control.behaviour === 'hang_after_create') return; // created, but the answer is lost
      res.status(201).json(checkout);
    } catch (error) {
      if (!(error instanceof DuplicateCheckout)) throw error;
      apiError(res, 409, 'DUPLICATED_CHECKOUT', 'Checkout with this checkout reference and pay to email already exists');
    }
  });

  api.get('/checkouts', (req, res) => {
    const reference = typeof req.query.checkout_reference === 'string' ? req.query.checkout_reference : undefined;
    res.json(control.behaviour === 'unlisted' && reference !== undefined ? [] : book.list(reference));
  });

  api.get('/checkouts/:id', (req, res) => {
    const checkout = book.get(req.params.id);
    if (!checkout) return apiError(res, 404, 'NOT_FOUND', 'Resource not found');
    res.json(checkout);
  });

  api.delete('/checkouts/:id', (req, res) => {
    if (!book.get(req.params.id)) return apiError(res, 404, 'NOT_FOUND', 'Resource not found');
    try {
      res.json(book.deactivate(req.params.id));
    } catch (error) {
      if (!(error instanceof CheckoutNotPending)) throw error;
      apiError(res, 409, 'CHECKOUT_PROCESSED', `The checkout is ${error.message} and cannot be deactivated`);
    }
  });

  // SumUp's refund: the whole transaction without an amount, else that much; 204 without a body.
  api.post('/me/refund/:txn_id', (req, res) => {
    const amount = (req.body as { amount?: unknown } | undefined)?.amount;
    if (amount !== undefined && (typeof amount !== 'number' || !Number.isFinite(amount))) return apiError(res, 400, 'INVALID', 'amount must be a number', 'amount');
    if (control.behaviour === 'refuse_refund') return apiError(res, 409, 'REFUND_NOT_ALLOWED', 'The sandbox was told to refuse refunds');
    if (control.behaviour === 'hang_refund') return; // lost before it was carried out
    try {
      book.refund(req.params.txn_id, amount as number | undefined);
    } catch (error) {
      if (!(error instanceof RefundRefused)) throw error;
      return apiError(res, error.status, error.errorCode, error.message);
    }
    if (control.behaviour === 'hang_after_refund') return; // refunded, but the answer is lost
    res.status(204).end();
  });

  // A transaction by id, with its refunded amount and refund events.
  api.get('/me/transactions', (req, res) => {
    const transaction = typeof req.query.id === 'string' ? book.transaction(req.query.id) : undefined;
    if (!transaction) return apiError(res, 404, 'NOT_FOUND', 'Resource not found');
    res.json({ ...transaction, simple_status: transaction.refunded_amount > 0 ? 'REFUNDED' : transaction.status });
  });

  app.use('/v0.1', api);

  // The hosted payment page a person opens from `hosted_checkout_url`.
  const htmlHeaders: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    next();
  };
  app.get('/pay/:id', htmlHeaders, (req, res) => {
    const checkout = book.get(String(req.params.id));
    if (!checkout) return res.status(404).send(renderMessagePage('Not found', 'There is no payment with this link.'));
    res.send(renderHostedPage(checkout, config.merchantCode));
  });
  app.post('/pay/:id', htmlHeaders, express.urlencoded({ extended: false, limit: '1kb' }), async (req, res) => {
    const checkout = book.get(String(req.params.id));
    if (!checkout) return res.status(404).send(renderMessagePage('Not found', 'There is no payment with this link.'));
    const action = (req.body as Record<string, unknown> | undefined)?.action;
    if (action !== 'pay' && action !== 'decline') return res.status(400).send(renderMessagePage('Choose Pay or Decline', 'The form was sent without a choice.'));
    try {
      book.complete(checkout.id, action === 'pay' ? 'PAID' : 'FAILED');
    } catch (error) {
      if (!(error instanceof CheckoutNotPending)) throw error;
      return res.status(409).send(renderHostedPage(checkout, config.merchantCode));
    }
    // Notified before the answer, so the shop knows by the time the payer sees the result.
    await notify(checkout, logger);
    if (checkout.redirect_url) return res.redirect(303, withCheckoutId(checkout.redirect_url, checkout.id));
    res.send(renderHostedPage(checkout, config.merchantCode));
  });

  // The control switch, documented in docs/checkout.md.
  app.post('/__sandbox/behaviour', express.json(), (req, res) => {
    const mode = (req.body as { mode?: unknown } | undefined)?.mode;
    if (!BEHAVIOURS.includes(mode as Behaviour)) return apiError(res, 400, 'INVALID', `mode must be one of ${BEHAVIOURS.join(', ')}`, 'mode');
    control.setBehaviour(mode as Behaviour);
    res.json({ mode: control.behaviour });
  });
  app.post('/__sandbox/clock', express.json(), (req, res) => {
    const advance = (req.body as { advance_ms?: unknown } | undefined)?.advance_ms;
    if (typeof advance !== 'number' || !Number.isInteger(advance) || advance < 0) return apiError(res, 400, 'INVALID', 'advance_ms must be a non-negative integer', 'advance_ms');
    control.advanceClock(advance);
    res.json({ now: new Date(control.now()).toISOString() });
  });

  app.use((_req, res) => apiError(res, 404, 'NOT_FOUND', 'Resource not found'));
  const onError: ErrorRequestHandler = (error: { type?: string }, _req, res, _next) => {
    if (error?.type === 'entity.parse.failed') return apiError(res, 400, 'INVALID', 'The body is not valid JSON');
    logger.error({ err: error }, 'unexpected sandbox error');
    apiError(res, 500, 'INTERNAL_ERROR', 'An unexpected error occurred');
  };
  app.use(onError);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  publicUrl ||= url;
  logger.info({ url, publicUrl }, 'payment sandbox listening');
  return {
    url,
    control,
    prepareCheckout: (input, status = 'PENDING') => {
      const checkout = book.create(input);
      if (status === 'EXPIRED') return book.deactivate(checkout.id);
      return status === 'PENDING' ? checkout : book.complete(checkout.id, status);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function invalidCreate(body: Record<string, unknown>, merchantCode: string): { message: string; param: string } | undefined {
  const reference = body.checkout_reference;
  if (typeof reference !== 'string' || reference === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH) {
    return { param: 'checkout_reference', message: `checkout_reference must be a string of 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters` };
  }
  if (typeof body.amount !== 'number' || !(body.amount > 0)) return { param: 'amount', message: 'amount must be a number greater than 0' };
  if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency)) return { param: 'currency', message: 'currency must be an ISO 4217 code' };
  if (body.merchant_code !== merchantCode) return { param: 'merchant_code', message: 'merchant_code does not name this merchant' };
  for (const field of ['description', 'return_url', 'redirect_url', 'valid_until']) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string') return { param: field, message: `${field} must be a string` };
  }
  if (typeof body.valid_until === 'string' && Number.isNaN(Date.parse(body.valid_until))) return { param: 'valid_until', message: 'valid_until must be a date-time' };
  return undefined;
}

function withCheckoutId(redirectUrl: string, checkoutId: string): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('checkout_id', checkoutId);
  return url.toString();
}

/** SumUp's webhook: unsigned, carries only the id; the receiver must re-read the status. */
async function notify(checkout: SandboxCheckout, logger: Logger): Promise<void> {
  if (!checkout.return_url || !/^https?:/.test(checkout.return_url)) return;
  try {
    const res = await fetch(checkout.return_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'CHECKOUT_STATUS_CHANGED', id: checkout.id }),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (!res.ok) logger.warn({ checkoutId: checkout.id, status: res.status }, 'the webhook receiver did not accept the notification');
  } catch (error) {
    logger.warn({ checkoutId: checkout.id, err: error }, 'could not deliver the webhook');
  }
}
