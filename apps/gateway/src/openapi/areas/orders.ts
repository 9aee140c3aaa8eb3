import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { errorResponse, jsonResponse, rateLimitedResponse, ref, type ApiArea } from '../../kit/api-docs';

/** The path parameter; the MCP tool that reads an order takes it as its argument. */
const CHECKOUT_REFERENCE_PARAMETER = {
  name: 'checkout_reference',
  in: 'path',
  required: true,
  description: 'The `checkout_reference` the order was created with',
  schema: { type: 'string', minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH },
  example: 'order-2026-0002',
};

const gbp = { type: 'number', description: 'GBP' };

/** Every status an order can be in; the console's filter takes the same. */
export const ORDER_STATUSES = [
  'pending_payment',
  'paid',
  'failed',
  'expired',
  'cancelled',
  'dispatched',
  'delivered',
  'partially_refunded',
  'refunded',
];

export const ordersArea: ApiArea = {
  tags: [
    {
      name: 'orders',
      description: 'Orders read back: their status, items, totals and, while unpaid, the payment link.',
    },
  ],
  schemas: {
    OrderDetails: {
      type: 'object',
      description:
        'An order as saved, with its status. Money in GBP. `status`: `pending_payment` until the payment is confirmed, ' +
        'then `paid`, or `failed` (declined) or `expired` (the payment link ran out unpaid); the shop may cancel an unpaid ' +
        'order (`cancelled`), and a paid one goes on to `dispatched` and `delivered` (refunded in part `partially_refunded`, in full `refunded`; `refunded` says how much). ' +
        '`delivery` is shown only to the account that placed the order, never for a guest order; so is `dispatch.trackingNumber`.',
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
        'createdAt',
        'updatedAt',
      ],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        reference: { type: 'string', description: 'The checkout_reference' },
        items: { type: 'array', items: ref('OrderLineView') },
        goods: gbp,
        discount: gbp,
        shipping: gbp,
        total: gbp,
        currency: { type: 'string' },
        status: { type: 'string', enum: ORDER_STATUSES },
        reservedUntil: {
          type: 'string',
          format: 'date-time',
          description: 'Stock is held until then; absent before the stock is reserved',
        },
        paymentLink: {
          type: 'string',
          format: 'uri',
          description:
            "The provider's hosted payment page, for a person to pay on; present only while the order is pending and its stock held",
        },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
        delivery: ref('Delivery'),
        dispatch: ref('Dispatch'),
        refunded: { type: 'number', description: 'GBP refunded so far; absent when nothing was' },
      },
    },
    OrderPage: {
      type: 'object',
      required: ['orders'],
      additionalProperties: false,
      properties: {
        orders: { type: 'array', items: ref('OrderDetails'), description: 'Newest first' },
        nextCursor: { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page' },
      },
    },
    Dispatch: {
      type: 'object',
      description: 'How the order left the shop, once it is dispatched; kept whatever status follows.',
      required: ['carrier', 'dispatchedAt'],
      additionalProperties: false,
      properties: {
        carrier: { type: 'string', maxLength: 60 },
        trackingNumber: {
          type: 'string',
          maxLength: 60,
          description:
            "The carrier's tracking number; only for the account that placed the order (a guest has it in the dispatch mail)",
        },
        dispatchedAt: { type: 'string', format: 'date-time' },
        deliveredAt: { type: 'string', format: 'date-time', description: 'Absent until the order is marked delivered' },
      },
    },
  },
  paths: {
    '/api/orders': {
      get: {
        operationId: 'listOrders',
        summary: "The signed-in customer's orders, newest first",
        description:
          'A page at a time: follow `nextCursor` until it is absent. Orders placed without a session are not listed.',
        tags: ['orders'],
        security: [{ sessionCookie: [] }],
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Orders per page (default 20)',
            schema: { type: 'integer', minimum: 1, maximum: ORDER_PAGE_MAX },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page; opaque',
            schema: { type: 'string', minLength: 1, maxLength: 200 },
          },
        ],
        responses: {
          '200': jsonResponse('A page of orders', 'OrderPage'),
          '400': errorResponse('`limit` out of range, or a `cursor` this service did not issue'),
          '401': errorResponse('No valid session'),
        },
      },
    },
    '/api/orders/{checkout_reference}': {
      get: {
        operationId: 'getOrder',
        summary: 'One order by its checkout_reference: status, items, totals and the payment link while unpaid',
        description:
          "An order placed with a session is found only with that account's session: anyone else gets 404, as for a " +
          'reference that does not exist. An order placed without a session (a guest order) is shown to whoever holds its ' +
          'reference, without its delivery details. Look-ups are limited per client address (an IPv6 address by its /64).',
        tags: ['orders'],
        security: [{}, { sessionCookie: [] }],
        parameters: [CHECKOUT_REFERENCE_PARAMETER],
        responses: {
          '200': jsonResponse('The order', 'OrderDetails'),
          '400': errorResponse(`The checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`),
          '404': errorResponse("`order_not_found`: no order with this reference, or another account's order"),
          '429': rateLimitedResponse('too many order look-ups from this address in the last minute'),
        },
      },
    },
  },
};
