import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Express } from 'express';
import { errorAnswer, methodNotAllowed } from '../kit/errors';
import { sendAnswer, type Answer, type DirectRoutes } from '../kit/direct-routes';
import { jsonBody } from '../kit/json-body';
import { addJsonPostAhead } from '../kit/json-posts';
import {
  CLEARED_SESSION_COOKIE,
  clientAddress,
  clientAddressResolver,
  resolveSessionToken,
  sessionTokenOf,
} from '../kit/customer-session';
import type { GatewayContext } from '../context';
import { createCheckout, validatePromo, type CreateCheckoutBody } from '../operations/checkout';
import { CreateCheckoutRequest, PaymentEvent, VALIDATE_PROMO_PARAMETERS } from '../openapi/areas/checkout';
import type { Static } from '../kit/schema';

const NO_STORE_JSON = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
const CREATE_CHECKOUT = '/api/create-checkout';

export function registerCheckoutRoutes(app: Express, direct: DirectRoutes, context: GatewayContext): void {
  const { clients, config, validator } = context;
  const parseJson = jsonBody(config.bodyLimitBytes);

  const addressOf = clientAddressResolver(config.trustedProxies);
  /**
   * The order of a checked body, with or without a session (only a signed-in customer's order
   * earns points). A cookie naming no session is cleared, whatever the order's outcome.
   */
  const placeOrder = async (request: IncomingMessage, body: CreateCheckoutBody): Promise<Answer> => {
    const token = sessionTokenOf(request);
    const session = token === undefined ? undefined : await resolveSessionToken(token, context);
    const clearCookie = (answer: Answer): Answer =>
      token !== undefined && !session
        ? { ...answer, headers: { ...answer.headers, 'Set-Cookie': CLEARED_SESSION_COOKIE } }
        : answer;
    try {
      const answer = await createCheckout(context, body, {
        customer: session?.userId,
        clientAddress: addressOf(request),
      });
      return clearCookie({ status: 200, headers: NO_STORE_JSON, body: Buffer.from(JSON.stringify(answer)) });
    } catch (error) {
      return clearCookie(errorAnswer(error, context.logger, CREATE_CHECKOUT));
    }
  };
  app
    .route(CREATE_CHECKOUT)
    .post(parseJson, validator.body(CreateCheckoutRequest), async (req, res) => {
      sendAnswer(res, await placeOrder(req, req.body as CreateCheckoutBody));
    })
    .all(methodNotAllowed('POST'));
  // A plain JSON body is read and answered ahead of Express, as the Express route would.
  addJsonPostAhead(direct, context, { path: CREATE_CHECKOUT, schema: CreateCheckoutRequest, answer: placeOrder });

  // Answered ahead of Express (kit/direct-routes.ts), its query parsed and checked as Express
  // would, and the client address taken as Express's `trust proxy` takes it. Reward codes are valid
  // for their owner only, so the session matters here too; a cookie naming no session is cleared.
  const checkQuery = validator.queryCheck(VALIDATE_PROMO_PARAMETERS);
  direct.add(app, {
    path: '/api/validate-promo',
    takesQuery: true,
    async answer(request) {
      const url = request.url ?? '';
      const query = parseQuery(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
      checkQuery(query);
      const token = sessionTokenOf(request);
      const session = token === undefined ? undefined : await resolveSessionToken(token, context);
      const answer = await validatePromo(context, String(query.code), {
        customer: session?.userId,
        clientAddress: addressOf(request),
      });
      const headers =
        token !== undefined && !session ? { ...NO_STORE_JSON, 'Set-Cookie': CLEARED_SESSION_COOKIE } : NO_STORE_JSON;
      return { status: 200, headers, body: Buffer.from(JSON.stringify(answer)) };
    },
  });

  app
    .route('/api/payments/events')
    .post(parseJson, validator.body(PaymentEvent), async (req, res) => {
      const event = req.body as Static<typeof PaymentEvent>;
      if (event.event_type === 'CHECKOUT_STATUS_CHANGED') {
        // Limited per client address and coalesced per order in checkout; the answer is the same for every id.
        await clients.checkout.notifyPaymentEvent(
          { providerCheckoutId: event.id, clientAddress: clientAddress(req) },
          { deadlineMs: config.checkoutDeadlineMs },
        );
      }
      res.json({ success: true });
    })
    .all(methodNotAllowed('POST'));
}
