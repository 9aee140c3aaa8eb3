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
  ref,
  serviceFailures,
  type ApiArea,
} from '../../kit/api-docs';

const httpUrl = (description: string) => ({
  type: 'string',
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
  description,
});

export const checkoutArea: ApiArea = {
  schemas: {
    CheckoutLine: {
      type: 'object',
      required: ['sku', 'quantity'],
      additionalProperties: false,
      properties: {
        sku: {
          type: 'string',
          minLength: 1,
          maxLength: 100,
          description: 'SKU key `<product>-<size>` as listed in /products.json',
        },
        quantity: { type: 'integer', minimum: 1, maximum: LINE_QUANTITY_MAX },
      },
    },
    Delivery: {
      type: 'object',
      description: 'Where the order goes. The shop delivers in the UK only.',
      required: ['name', 'email', 'line1', 'city', 'postcode', 'country'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        email: { type: 'string', format: 'email', maxLength: 254 },
        phone: { type: 'string', maxLength: 40 },
        line1: { type: 'string', minLength: 1, maxLength: 200 },
        line2: { type: 'string', maxLength: 200 },
        city: { type: 'string', minLength: 1, maxLength: 100 },
        postcode: { type: 'string', minLength: 1, maxLength: 16 },
        country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2; GB only' },
      },
    },
    CreateCheckoutRequest: {
      type: 'object',
      description:
        'A basket priced by the server. `amount` must equal the server total to the penny: goods, minus the promo discount ' +
        '(rounded half up), plus the shipping fee when goods after discount are under the free-shipping threshold, both as ' +
        '/products.json publishes them in `shipping`. `checkout_reference` is the ' +
        'order reference and idempotency key: the same request again answers the same order; another request under a used ' +
        'reference is 422.',
      required: ['checkout_reference', 'amount', 'currency', 'merchant_code', 'items', 'delivery'],
      additionalProperties: false,
      properties: {
        checkout_reference: {
          type: 'string',
          minLength: 1,
          maxLength: ORDER_REFERENCE_MAX_LENGTH,
          description: 'Order reference chosen by the client; reuse it when retrying',
        },
        amount: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: ORDER_AMOUNT_MAX_POUNDS,
          description: `Order total in pounds, e.g. 54.93; at most ${ORDER_AMOUNT_MAX_POUNDS}. A larger amount is 400 \`invalid_request\` naming \`amount\`.`,
        },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code; GBP only' },
        merchant_code: {
          type: 'string',
          minLength: 1,
          maxLength: 32,
          description: "The shop's merchant code, as in /products.json",
        },
        description: { type: 'string', maxLength: 200 },
        return_url: httpUrl(
          "Notification URL passed to the payment provider; defaults to this service's /api/payments/events. " +
            'A URL carrying credentials (user:password@) is 400 naming return_url.',
        ),
        redirect_url: httpUrl(
          "Where the payer's browser goes after paying or declining: a URL on one of the shop's own origins, over https " +
            '(http only on localhost, 127.0.0.1 or [::1]). Any other URL is 400 `invalid_redirect_url`.',
        ),
        items: { type: 'array', minItems: 1, maxItems: ORDER_LINES_MAX, items: ref('CheckoutLine') },
        delivery: ref('Delivery'),
        promo_code: {
          type: 'string',
          maxLength: 64,
          description: 'Promo code, or a reward code of the logged-in customer',
        },
        provider: {
          type: 'string',
          enum: ['sandbox', 'sumup'],
          description: 'Payment provider; defaults to the configured one',
        },
      },
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
    OrderLineView: {
      type: 'object',
      required: ['sku', 'quantity', 'unitPrice'],
      properties: {
        sku: { type: 'string' },
        quantity: { type: 'integer' },
        unitPrice: { type: 'number', description: 'GBP' },
      },
    },
    OrderSummary: {
      type: 'object',
      description: 'The saved order; money in GBP.',
      required: [
        'id',
        'reference',
        'items',
        'goods',
        'discount',
        'shipping',
        'total',
        'currency',
        'status',
        'reservedUntil',
      ],
      properties: {
        id: { type: 'string' },
        reference: { type: 'string' },
        items: { type: 'array', items: ref('OrderLineView') },
        goods: { type: 'number' },
        discount: { type: 'number' },
        shipping: { type: 'number' },
        total: { type: 'number' },
        currency: { type: 'string' },
        status: {
          type: 'string',
          enum: [
            'pending_payment',
            'paid',
            'failed',
            'expired',
            'cancelled',
            'dispatched',
            'delivered',
            'partially_refunded',
            'refunded',
          ],
        },
        reservedUntil: {
          type: 'string',
          format: 'date-time',
          description: 'Stock is held until then; the payment link stops working at the same time',
        },
      },
    },
    CheckoutResult: {
      type: 'object',
      description:
        "The payment provider's checkout (SumUp's field names), plus `order_saved` and the order. Hand `hosted_checkout_url` to the person who pays. " +
        'Optional fields are left out when the provider has no value for them.',
      required: ['id', 'status', 'order_saved', 'order'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: "Provider's checkout id" },
        checkout_reference: { type: 'string' },
        amount: { type: 'number', description: 'GBP' },
        currency: { type: 'string' },
        merchant_code: { type: 'string' },
        description: { type: 'string' },
        return_url: { type: 'string', format: 'uri', description: 'Where the provider sends status notifications' },
        redirect_url: { type: 'string', format: 'uri', description: "Where the payer's browser goes afterwards" },
        status: {
          type: 'string',
          enum: ['PENDING', 'PAID', 'FAILED', 'EXPIRED'],
          description:
            "The payment's status: the provider's when the link was made while the order is open, then the one the order was closed with (a replay of a paid order says PAID)",
        },
        date: { type: 'string', format: 'date-time', description: 'When the provider created the checkout' },
        hosted_checkout_url: { type: 'string', format: 'uri' },
        valid_until: { type: 'string', format: 'date-time' },
        order_saved: { type: 'boolean', const: true },
        order: ref('OrderSummary'),
      },
    },
    PromoValidationResult: {
      type: 'object',
      required: ['valid'],
      properties: {
        valid: { type: 'boolean', description: 'whether the code is currently valid' },
        code: { type: 'string', description: 'the code, normalised to upper case' },
        discount: { type: 'number', description: 'decimal fraction, 0.10 means 10% off; present when valid' },
      },
      example: { valid: true, code: 'WELCOME10', discount: 0.1 },
    },
    PaymentEvent: {
      type: 'object',
      description: "The payment provider's notification. Only a hint: the status is re-read from the provider.",
      required: ['event_type', 'id'],
      properties: {
        event_type: { type: 'string', maxLength: 64, example: 'CHECKOUT_STATUS_CHANGED' },
        id: { type: 'string', minLength: 1, maxLength: 100, description: "Provider's checkout id" },
      },
    },
    Acknowledgement: {
      type: 'object',
      required: ['success'],
      properties: { success: { type: 'boolean', const: true } },
    },
  },
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
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateCheckoutRequest') } } },
        responses: {
          '200': jsonResponse("The provider's checkout object with the saved order", 'CheckoutResult'),
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
        parameters: [
          { name: 'code', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } },
        ],
        responses: {
          '200': jsonResponse('Promo validation result', 'PromoValidationResult'),
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
        requestBody: { required: true, content: { 'application/json': { schema: ref('PaymentEvent') } } },
        responses: {
          '200': jsonResponse('Received', 'Acknowledgement'),
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
