/**
 * Placing an order through the API: create-checkout (answered ahead of Express for a plain JSON body), promo code
 * checks, and the payment provider's notifications.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { GatewayContext } from '../context';
import {
  CheckoutResult,
  CreateCheckoutRequest,
  placeOrder,
  PromoValidationResult,
  validatePromo,
  type CreateCheckoutBody,
} from '../application/place-order';
import {
  crossSiteResponse,
  errorResponse,
  jsonBodyRefusals,
  jsonResponse,
  rateLimitedResponse,
  serviceFailures,
} from '../kit/api-docs';
import {
  CLEARED_SESSION_COOKIE,
  clientAddress,
  clientAddressResolver,
  resolveSessionToken,
  sessionTokenOf,
} from '../kit/customer-session';
import type { Answer } from '../kit/direct-routes';
import { callerOf } from '../kit/caller';
import { OrderQuote, QuoteRequest, quoteOrder } from '../application/quote-order';
import { errorAnswer } from '../kit/errors';
import { atMostAtOnce } from '../kit/at-once';
import { apiRoute, directGet, jsonPost, type ApiRoutes } from '../kit/routes';
import { component, Type } from '../kit/schema';
import type { Parameter } from '../kit/validator';

const NO_STORE_JSON = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
const CREATE_CHECKOUT = '/api/create-checkout';

type OrderArgs = Parameters<typeof placeOrder> extends [unknown, ...infer Rest] ? Rest : never;

const PROMO_CODE_PARAMETERS: Parameter[] = [
  { name: 'code', in: 'query', required: true, schema: Type.String({ minLength: 1, maxLength: 64 }) },
];

const PaymentEvent = component(
  'PaymentEvent',
  Type.Object(
    {
      event_type: Type.String({ maxLength: 64, example: 'CHECKOUT_STATUS_CHANGED' }),
      id: Type.String({ minLength: 1, maxLength: 100, description: "Provider's checkout id" }),
    },
    { description: "The payment provider's notification. Only a hint: the status is re-read from the provider." },
  ),
);

const Acknowledgement = component('Acknowledgement', Type.Object({ success: Type.Literal(true) }));

export const basketCheckoutApi: ApiRoutes<GatewayContext> = {
  tags: [{ name: 'checkout', description: 'Server-priced orders and hosted payment links.' }],
  routes: [
    jsonPost({
      path: CREATE_CHECKOUT,
      operation: {
        operationId: 'createCheckout',
        summary: 'Save a server-priced order, reserve its stock and create a hosted payment link',
        description:
          'Works with or without the session cookie; with it, the paid order earns loyalty points. ' +
          'The link is for a person ' +
          'to complete the card payment; hand it over only when `order_saved` is true. Retry an ' +
          'uncertain request with the ' +
          'same body and `checkout_reference`. Abuse limits count per client address (an IPv6 ' +
          'address by its /64) and per ' +
          'account: new orders per minute, unpaid orders open at once, and the share of a ' +
          'stock-limited SKU that open ' +
          'orders may hold together (half the units on hand, at least one). A retry of a saved order is never limited.',
        tags: ['checkout'],
        security: [{}, { sessionCookie: [] }],
        responses: {
          '200': jsonResponse("The provider's checkout object with the saved order", CheckoutResult),
          '400': errorResponse(
            'Invalid request: a field, a `redirect_url` off the shop (`invalid_redirect_url`), an ' +
              'unknown SKU, an amount other than the server total (the detail gives it), or ' +
              '`invalid_promo_code`: the code is unknown, expired or used up, or another open order ' +
              'holds it (a single-use ' +
              'reward code, or every use of a capped promo code); it is free again if that order is ' +
              'not paid. Nothing is stored, ' +
              'so the same `checkout_reference` may be sent again with another code or none; or `malformed_json`',
          ),
          '403': crossSiteResponse,
          '409': {
            ...errorResponse(
              '`out_of_stock` naming the SKUs, and when other orders hold the units, how many and ' +
                'when the first is back ' +
                '("3 of bpc-157-10mg are held in other baskets, back by 14:05", London time; send ' +
                '`wait_for_stock` to pay ' +
                'now and wait for them); `request_in_progress` while the same reference is being processed; ' +
                '`reservation_expired` or `order_closed` when a retry comes after the stock hold of ' +
                'an order without a link ended',
            ),
            headers: {
              'Retry-After': {
                description:
                  'With `out_of_stock` when other orders hold the units: seconds until the first may be back',
                schema: Type.Integer({ minimum: 1 }),
              },
            },
          },
          '422': errorResponse(
            "`idempotency_mismatch`: the reference was used with a different request. Another account's " +
              'reference is answered like a new one (the same 400s and 429s) and is 422 only for a body that would ' +
              'otherwise be accepted',
          ),
          '429': rateLimitedResponse(
            'too many new orders from this address or account in the last minute, too many order ' +
              'look-ups from this address (every attempt that is not a replay counts as one), too many unpaid ' +
              'orders open, or open orders that would hold too much of a stock-limited SKU; nothing was saved',
          ),
          ...jsonBodyRefusals,
          '502': errorResponse(
            '`provider_unavailable`: the payment provider failed or did not answer in time; the ' +
              'order and its stock are kept, retry the same request',
          ),
          ...serviceFailures(),
          '503': {
            ...errorResponse(
              '`service_unavailable`: more orders are being placed at this moment than the shop takes at once, or a ' +
                'service behind the gateway is unavailable: send the same request (its `checkout_reference` too) ' +
                'again after Retry-After',
            ),
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before sending it again',
                schema: Type.Integer({ minimum: 1 }),
              },
            },
          },
        },
      },
      body: { schema: CreateCheckoutRequest },
      answer: (context) => {
        const addressOf = clientAddressResolver(context.config.trustedProxies);
        const place = atMostAtOnce(context.config.checkoutsAtOnce, 'orders', (...args: OrderArgs) =>
          placeOrder(context, ...args),
        );
        /**
         * The order of a checked body, with or without a session (only a signed-in customer's order earns points). A
         * cookie naming no session is cleared, whatever the order's outcome.
         */
        return async (request: IncomingMessage, body: CreateCheckoutBody): Promise<Answer> => {
          const token = sessionTokenOf(request);
          const session = token === undefined ? undefined : await resolveSessionToken(token, context);
          const clearCookie = (answer: Answer): Answer =>
            token !== undefined && !session
              ? { ...answer, headers: { ...answer.headers, 'Set-Cookie': CLEARED_SESSION_COOKIE } }
              : answer;
          try {
            const answer = await place(body, {
              customer: session?.userId,
              clientAddress: addressOf(request),
            });
            return clearCookie({ status: 200, headers: NO_STORE_JSON, body: Buffer.from(JSON.stringify(answer)) });
          } catch (error) {
            return clearCookie(errorAnswer(error, context.logger, CREATE_CHECKOUT));
          }
        };
      },
    }),
    // Answered ahead of Express (kit/direct-routes.ts), its query parsed and checked as Express would, and the client
    // address taken as Express's `trust proxy` takes it. Reward codes are valid for their owner only, so the session
    // matters here too; a cookie naming no session is cleared.
    directGet({
      path: '/api/validate-promo',
      takesQuery: true,
      operation: {
        operationId: 'validatePromo',
        summary: 'Whether a discount code is currently valid (never consumes it)',
        description:
          "Case-insensitive. Reward codes issued by the loyalty programme are valid only with their owner's " +
          'session. A code an open order holds (a reward code, or every use of a capped promo code) is not valid ' +
          'until that order closes unpaid. Checks are limited per client address (an IPv6 address by its /64).',
        tags: ['catalog'],
        security: [{}, { sessionCookie: [] }],
        parameters: [...PROMO_CODE_PARAMETERS],
        responses: {
          '200': jsonResponse('Promo validation result', PromoValidationResult),
          '400': errorResponse('The code parameter is missing or too long'),
          '429': rateLimitedResponse('too many checks from this address in the last minute'),
          ...serviceFailures(),
        },
      },
      answer: (context) => {
        const addressOf = clientAddressResolver(context.config.trustedProxies);
        const checkQuery = context.validator.queryCheck(PROMO_CODE_PARAMETERS);
        return async (request) => {
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
            token !== undefined && !session
              ? { ...NO_STORE_JSON, 'Set-Cookie': CLEARED_SESSION_COOKIE }
              : NO_STORE_JSON;
          return { status: 200, headers, body: Buffer.from(JSON.stringify(answer)) };
        };
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/quote',
      operation: {
        operationId: 'quoteOrder',
        summary: 'Price a basket as create-checkout would, and say when an order placed now would be dispatched',
        description:
          "The server's goods, discount, shipping and total in pence for `items` and an optional `promo_code`, by " +
          'the same pricing create-checkout charges by, and the dispatch and delivery dates: orders leave on ' +
          'working days (Monday to Friday, not an England-and-Wales bank holiday), the same day when placed before ' +
          'the cut-off (14:00 London time by default), else on the next working day, and arrive the working day ' +
          'after. Nothing is saved or held. A code that does not apply is named in `promo_refusal` and left out of ' +
          'the totals; a code counts as a promo check (limited per client address). Reward codes need their ' +
          "owner's session.",
        tags: ['checkout'],
        security: [{}, { sessionCookie: [] }],
        responses: {
          '200': jsonResponse('The basket priced, with its dispatch date', OrderQuote),
          '400': errorResponse(
            '`invalid_request` naming the field (`items`, `items[0].quantity`, `promo_code`, ...), ' +
              '`unknown_sku` naming the line, or `malformed_json`',
          ),
          '403': crossSiteResponse,
          '429': rateLimitedResponse('too many promo checks from this address in the last minute'),
          ...jsonBodyRefusals,
          ...serviceFailures(),
        },
      },
      body: { schema: QuoteRequest },
      handle: (context) => async (req, res, body) => {
        const answer = await quoteOrder(context, body, await callerOf(req, res, context));
        res.set(NO_STORE_JSON).json(answer);
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/payments/events',
      operation: {
        operationId: 'receivePaymentEvent',
        summary: "Payment provider notification (SumUp's CHECKOUT_STATUS_CHANGED webhook)",
        description:
          'A hint only: the order status is re-read from the provider, so a forged event changes ' +
          'nothing. The answer is the same ' +
          'whatever `id` names (an open order, a closed one, an unknown id, or a provider read that ' +
          'failed). Notifications are limited ' +
          'per client address, and those for one order read the provider at most once in a few ' +
          'seconds; the reconciler reads the rest.',
        tags: ['checkout'],
        responses: {
          '200': jsonResponse('Received', Acknowledgement),
          '400': errorResponse('The body is not a payment event, or `malformed_json`'),
          '429': rateLimitedResponse('too many notifications from this address in the last minute'),
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '502': errorResponse(
            '`provider_unavailable`: the status could not be re-read from the payment provider; the ' +
              'reconciler visits the order later anyway',
          ),
          ...serviceFailures(),
        },
      },
      body: { schema: PaymentEvent },
      handle:
        ({ clients, config }) =>
        async (req, res, event) => {
          if (event.event_type === 'CHECKOUT_STATUS_CHANGED') {
            // Limited per client address and coalesced per order in checkout; the answer is the same for every id.
            await clients.checkout.notifyPaymentEvent(
              { providerCheckoutId: event.id, clientAddress: clientAddress(req) },
              { deadlineMs: config.checkoutDeadlineMs },
            );
          }
          res.json({ success: true });
        },
    }),
  ],
};
