import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { errorResponse, jsonResponse, rateLimitedResponse, type ApiPart } from '../../kit/api-docs';
import { component, StringEnum, Type } from '../../kit/schema';
import type { Parameter } from '../../kit/validator';
import { Delivery, ORDER_STATUSES, OrderLineView } from './checkout';

/** The path parameter; the MCP tool that reads an order takes it as its argument. */
const CHECKOUT_REFERENCE_PARAMETER: Parameter = {
  name: 'checkout_reference',
  in: 'path',
  required: true,
  description: 'The `checkout_reference` the order was created with',
  schema: Type.String({ minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH }),
  example: 'order-2026-0002',
};

export const LIST_ORDERS_PARAMETERS: Parameter[] = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Orders per page (default 20)',
    schema: Type.Integer({ minimum: 1, maximum: ORDER_PAGE_MAX }),
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The `nextCursor` of the previous page; opaque',
    schema: Type.String({ minLength: 1, maxLength: 200 }),
  },
];

const gbp = () => Type.Number({ description: 'GBP' });

export const Dispatch = component(
  'Dispatch',
  Type.Object(
    {
      carrier: Type.String({ maxLength: 60 }),
      trackingNumber: Type.Optional(
        Type.String({
          maxLength: 60,
          description:
            "The carrier's tracking number; only for the account that placed the order (a guest has it in the dispatch mail)",
        }),
      ),
      dispatchedAt: Type.String({ format: 'date-time' }),
      deliveredAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'Absent until the order is marked delivered' }),
      ),
    },
    {
      description: 'How the order left the shop, once it is dispatched; kept whatever status follows.',
      additionalProperties: false,
    },
  ),
);

export const OrderDetails = component(
  'OrderDetails',
  Type.Object(
    {
      id: Type.String(),
      reference: Type.String({ description: 'The checkout_reference' }),
      items: Type.Array(OrderLineView),
      goods: gbp(),
      discount: gbp(),
      shipping: gbp(),
      total: gbp(),
      currency: Type.String(),
      status: StringEnum(ORDER_STATUSES),
      reservedUntil: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'Stock is held until then; absent before the stock is reserved',
        }),
      ),
      paymentLink: Type.Optional(
        Type.String({
          format: 'uri',
          description:
            "The provider's hosted payment page, for a person to pay on; present only while the order is pending and its stock held",
        }),
      ),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
      delivery: Type.Optional(Delivery),
      dispatch: Type.Optional(Dispatch),
      refunded: Type.Optional(Type.Number({ description: 'GBP refunded so far; absent when nothing was' })),
    },
    {
      description:
        'An order as saved, with its status. Money in GBP. `status`: `pending_payment` until the payment is confirmed, ' +
        'then `paid`, or `failed` (declined) or `expired` (the payment link ran out unpaid); the shop may cancel an unpaid ' +
        'order (`cancelled`), and a paid one goes on to `dispatched` and `delivered` (refunded in part `partially_refunded`, in full `refunded`; `refunded` says how much). ' +
        '`delivery` is shown only to the account that placed the order, never for a guest order; so is `dispatch.trackingNumber`.',
      additionalProperties: false,
    },
  ),
);

const OrderPage = component(
  'OrderPage',
  Type.Object(
    {
      orders: Type.Array(OrderDetails, { description: 'Newest first' }),
      nextCursor: Type.Optional(
        Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const ordersArea: ApiPart = {
  tags: [
    {
      name: 'orders',
      description: 'Orders read back: their status, items, totals and, while unpaid, the payment link.',
    },
  ],
  paths: {
    '/api/orders': {
      get: {
        operationId: 'listOrders',
        summary: "The signed-in customer's orders, newest first",
        description:
          'A page at a time: follow `nextCursor` until it is absent. Orders placed without a session are not listed.',
        tags: ['orders'],
        security: [{ sessionCookie: [] }],
        parameters: LIST_ORDERS_PARAMETERS,
        responses: {
          '200': jsonResponse('A page of orders', OrderPage),
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
          '200': jsonResponse('The order', OrderDetails),
          '400': errorResponse(`The checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`),
          '404': errorResponse("`order_not_found`: no order with this reference, or another account's order"),
          '429': rateLimitedResponse('too many order look-ups from this address in the last minute'),
        },
      },
    },
  },
};
