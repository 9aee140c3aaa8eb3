import {
  DEFAULT_MERCHANT_CODE,
  LINE_QUANTITY_MAX,
  ORDER_AMOUNT_MAX_POUNDS,
  ORDER_LINES_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
} from '@storefront/formats';
import {
  crossSiteResponse,
  errorResponse,
  jsonBodyRefusals,
  jsonResponse,
  rateLimitedResponse,
  serviceFailures,
  type ApiPart,
} from '../../kit/api-docs';
import { component, StringEnum, Type } from '../../kit/schema';
import type { Parameter } from '../../kit/validator';
import { Delivery, OrderSummary } from '../../application/orders';

const httpUrl = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });

const CheckoutLine = component(
  'CheckoutLine',
  Type.Object(
    {
      sku: Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'SKU key `<product>-<size>` as listed in /products.json',
      }),
      quantity: Type.Integer({ minimum: 1, maximum: LINE_QUANTITY_MAX }),
    },
    { additionalProperties: false },
  ),
);

export const CreateCheckoutRequest = component(
  'CreateCheckoutRequest',
  Type.Object(
    {
      checkout_reference: Type.String({
        minLength: 1,
        maxLength: ORDER_REFERENCE_MAX_LENGTH,
        description: 'Order reference chosen by the client; reuse it when retrying',
      }),
      amount: Type.Number({
        exclusiveMinimum: 0,
        maximum: ORDER_AMOUNT_MAX_POUNDS,
        description: `Order total in pounds, e.g. 54.93; at most ${ORDER_AMOUNT_MAX_POUNDS}. A larger amount is 400 \`invalid_request\` naming \`amount\`.`,
      }),
      currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code; GBP only' }),
      merchant_code: Type.String({
        minLength: 1,
        maxLength: 32,
        description: "The shop's merchant code, as in /products.json",
      }),
      description: Type.Optional(Type.String({ maxLength: 200 })),
      return_url: Type.Optional(
        httpUrl(
          "Notification URL passed to the payment provider; defaults to this service's /api/payments/events. " +
            'A URL carrying credentials (user:password@) is 400 naming return_url.',
        ),
      ),
      redirect_url: Type.Optional(
        httpUrl(
          "Where the payer's browser goes after paying or declining: a URL on one of the shop's own origins, over https " +
            '(http only on localhost, 127.0.0.1 or [::1]). Any other URL is 400 `invalid_redirect_url`.',
        ),
      ),
      items: Type.Array(CheckoutLine, { minItems: 1, maxItems: ORDER_LINES_MAX }),
      delivery: Delivery,
      promo_code: Type.Optional(
        Type.String({ maxLength: 64, description: 'Promo code, or a reward code of the logged-in customer' }),
      ),
      provider: Type.Optional(
        StringEnum(['sandbox', 'sumup'], { description: 'Payment provider; defaults to the configured one' }),
      ),
    },
    {
      description:
        'A basket priced by the server. `amount` must equal the server total to the penny: goods, minus the promo discount ' +
        '(rounded half up), plus the shipping fee when goods after discount are under the free-shipping threshold, both as ' +
        '/products.json publishes them in `shipping`. `checkout_reference` is the ' +
        'order reference and idempotency key: the same request again answers the same order; another request under a used ' +
        'reference is 422.',
      additionalProperties: false,
      example: {
        checkout_reference: 'order-2026-0001',
        amount: 54.93,
        currency: 'GBP',
        merchant_code: DEFAULT_MERCHANT_CODE,
        description: 'BPC-157 5mg × 2',
        items: [{ sku: 'bpc-157-5mg', quantity: 2 }],
        delivery: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          line1: '12 St James Square',
          city: 'London',
          postcode: 'SW1Y 4JH',
          country: 'GB',
        },
      },
    },
  ),
);

export const CheckoutResult = component(
  'CheckoutResult',
  Type.Object(
    {
      id: Type.String({ description: "Provider's checkout id" }),
      checkout_reference: Type.Optional(Type.String()),
      amount: Type.Optional(Type.Number({ description: 'GBP' })),
      currency: Type.Optional(Type.String()),
      merchant_code: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      return_url: Type.Optional(
        Type.String({ format: 'uri', description: 'Where the provider sends status notifications' }),
      ),
      redirect_url: Type.Optional(
        Type.String({ format: 'uri', description: "Where the payer's browser goes afterwards" }),
      ),
      status: StringEnum(['PENDING', 'PAID', 'FAILED', 'EXPIRED'], {
        description:
          "The payment's status: the provider's when the link was made while the order is open, then the one the order was closed with (a replay of a paid order says PAID)",
      }),
      date: Type.Optional(Type.String({ format: 'date-time', description: 'When the provider created the checkout' })),
      hosted_checkout_url: Type.Optional(Type.String({ format: 'uri' })),
      valid_until: Type.Optional(Type.String({ format: 'date-time' })),
      order_saved: Type.Literal(true),
      order: OrderSummary,
    },
    {
      description:
        "The payment provider's checkout (SumUp's field names), plus `order_saved` and the order. Hand `hosted_checkout_url` to the person who pays. " +
        'Optional fields are left out when the provider has no value for them.',
      additionalProperties: false,
    },
  ),
);

export const PromoValidationResult = component(
  'PromoValidationResult',
  Type.Object(
    {
      valid: Type.Boolean({ description: 'whether the code is currently valid' }),
      code: Type.Optional(Type.String({ description: 'the code, normalised to upper case' })),
      discount: Type.Optional(Type.Number({ description: 'decimal fraction, 0.10 means 10% off; present when valid' })),
    },
    { example: { valid: true, code: 'WELCOME10', discount: 0.1 } },
  ),
);

export const PaymentEvent = component(
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

export const VALIDATE_PROMO_PARAMETERS: Parameter[] = [
  { name: 'code', in: 'query', required: true, schema: Type.String({ minLength: 1, maxLength: 64 }) },
];

export const checkoutArea: ApiPart = {
  tags: [{ name: 'checkout', description: 'Server-priced orders and hosted payment links.' }],
  paths: {
    '/api/create-checkout': {
      post: {
        operationId: 'createCheckout',
        summary: 'Save a server-priced order, reserve its stock and create a hosted payment link',
        description:
          'Works with or without the session cookie; with it, the paid order earns loyalty points. The link is for a person ' +
          'to complete the card payment; hand it over only when `order_saved` is true. Retry an uncertain request with the ' +
          'same body and `checkout_reference`. Abuse limits count per client address (an IPv6 address by its /64) and per ' +
          'account: new orders per minute, unpaid orders open at once, and the share of a stock-limited SKU that open ' +
          'orders may hold together (half the units on hand, at least one). A retry of a saved order is never limited.',
        tags: ['checkout'],
        security: [{}, { sessionCookie: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: CreateCheckoutRequest } } },
        responses: {
          '200': jsonResponse("The provider's checkout object with the saved order", CheckoutResult),
          '400': errorResponse(
            'Invalid request: a field, a `redirect_url` off the shop (`invalid_redirect_url`), an unknown SKU, an amount other than the server total (the detail gives it), or ' +
              '`invalid_promo_code`: the code is unknown, expired or used up, or another open order holds it (a single-use ' +
              'reward code, or every use of a capped promo code); it is free again if that order is not paid. Nothing is stored, ' +
              'so the same `checkout_reference` may be sent again with another code or none; or `malformed_json`',
          ),
          '403': crossSiteResponse,
          '409': errorResponse(
            '`out_of_stock` naming the SKUs; `request_in_progress` while the same reference is being processed; `reservation_expired` or `order_closed` when a retry comes after the stock hold of an order without a link ended',
          ),
          '422': errorResponse(
            "`idempotency_mismatch`: the reference was used with a different request. Another account's reference is answered like a new one (the same 400s and 429s) and is 422 only for a body that would otherwise be accepted",
          ),
          '429': rateLimitedResponse(
            'too many new orders from this address or account in the last minute, too many order look-ups from this address (every attempt that is not a replay counts as one), too many unpaid orders open, or open orders that would hold too much of a stock-limited SKU; nothing was saved',
          ),
          ...jsonBodyRefusals,
          '502': errorResponse(
            '`provider_unavailable`: the payment provider failed or did not answer in time; the order and its stock are kept, retry the same request',
          ),
          ...serviceFailures(),
        },
      },
    },
    '/api/validate-promo': {
      get: {
        operationId: 'validatePromo',
        summary: 'Whether a discount code is currently valid (never consumes it)',
        description:
          "Case-insensitive. Reward codes issued by the loyalty programme are valid only with their owner's session. A code " +
          'an open order holds (a reward code, or every use of a capped promo code) is not valid until that order closes unpaid. ' +
          'Checks are limited per client address (an IPv6 address by its /64).',
        tags: ['catalog'],
        security: [{}, { sessionCookie: [] }],
        parameters: [...VALIDATE_PROMO_PARAMETERS],
        responses: {
          '200': jsonResponse('Promo validation result', PromoValidationResult),
          '400': errorResponse('The code parameter is missing or too long'),
          '429': rateLimitedResponse('too many checks from this address in the last minute'),
          ...serviceFailures(),
        },
      },
    },
    '/api/payments/events': {
      post: {
        operationId: 'receivePaymentEvent',
        summary: "Payment provider notification (SumUp's CHECKOUT_STATUS_CHANGED webhook)",
        description:
          'A hint only: the order status is re-read from the provider, so a forged event changes nothing. The answer is the same ' +
          'whatever `id` names (an open order, a closed one, an unknown id, or a provider read that failed). Notifications are limited ' +
          'per client address, and those for one order read the provider at most once in a few seconds; the reconciler reads the rest.',
        tags: ['checkout'],
        requestBody: { required: true, content: { 'application/json': { schema: PaymentEvent } } },
        responses: {
          '200': jsonResponse('Received', Acknowledgement),
          '400': errorResponse('The body is not a payment event, or `malformed_json`'),
          '429': rateLimitedResponse('too many notifications from this address in the last minute'),
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '502': errorResponse(
            '`provider_unavailable`: the status could not be re-read from the payment provider; the reconciler visits the order later anyway',
          ),
          ...serviceFailures(),
        },
      },
    },
  },
};
