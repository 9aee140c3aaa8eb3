/**
 * The sandbox payment provider: the subset of SumUp's checkout API the shop uses (create, read, list by reference,
 * deactivate; refund a transaction and read it back), a hosted payment page where a person clicks Pay or Decline,
 * status-change notifications to the checkout's `return_url`, and a control switch for tests. For local runs and tests
 * only: checkouts live in memory.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { createLogger, type Logger } from '@storefront/logging';
import { answerAhead } from '@storefront/telemetry';
import type { PaymentSandboxConfig } from './config';
import { apiErrorBody, isApiRequest, sandboxApi } from './api';
import {
  CheckoutBook,
  CheckoutNotPending,
  type CheckoutStatus,
  type NewCheckout,
  type SandboxCheckout,
} from './checkouts';
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

export async function startPaymentSandbox(
  config: PaymentSandboxConfig,
  options: SandboxOptions = {},
): Promise<PaymentSandbox> {
  const logger = options.logger ?? createLogger('payment-sandbox', config.logLevel);
  const control = new SandboxControl(options.now);
  const book = new CheckoutBook(control.now);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const server = http.createServer(app);
  let publicUrl = config.publicUrl ?? '';

  const apiError = (res: Response, status: number, errorCode: string, message: string, param?: string) =>
    res.status(status).json(apiErrorBody(errorCode, message, param));

  // The API is answered ahead of Express (and of the HTTP instrumentation, which sees requests
  // through the server's 'request' event); everything else goes on to Express.
  const serveApi = sandboxApi({
    book,
    control,
    merchantCode: config.merchantCode,
    apiKey: config.apiKey,
    logger,
    publicUrl: () => publicUrl,
  });
  answerAhead(server, (request, response) => {
    if (!isApiRequest(request)) return false;
    serveApi(request, response);
    return true;
  });

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
    if (action !== 'pay' && action !== 'decline')
      return res.status(400).send(renderMessagePage('Choose Pay or Decline', 'The form was sent without a choice.'));
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
    if (!BEHAVIOURS.includes(mode as Behaviour))
      return apiError(res, 400, 'INVALID', `mode must be one of ${BEHAVIOURS.join(', ')}`, 'mode');
    control.setBehaviour(mode as Behaviour);
    res.json({ mode: control.behaviour });
  });
  app.post('/__sandbox/clock', express.json(), (req, res) => {
    const advance = (req.body as { advance_ms?: unknown } | undefined)?.advance_ms;
    if (typeof advance !== 'number' || !Number.isInteger(advance) || advance < 0)
      return apiError(res, 400, 'INVALID', 'advance_ms must be a non-negative integer', 'advance_ms');
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
    if (!res.ok)
      logger.warn(
        { checkoutId: checkout.id, status: res.status },
        'the webhook receiver did not accept the notification',
      );
  } catch (error) {
    logger.warn({ checkoutId: checkout.id, err: error }, 'could not deliver the webhook');
  }
}
