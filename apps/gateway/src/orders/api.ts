/** Orders read back through the API: the signed-in customer's list, and one order by its reference. */
import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { GatewayContext } from '../context';
import { getOrder, orderDetailsView, OrderDetails } from '../application/orders';
import { errorResponse, jsonResponse, rateLimitedResponse } from '../kit/api-docs';
import { clientAddress, requireSession, sessionFirst, sessionOf } from '../kit/customer-session';
import { apiRoute, type ApiRoutes } from '../kit/routes';
import { component, Type } from '../kit/schema';
import type { Parameter } from '../kit/validator';

/** The path parameter; the MCP tool that reads an order takes it as its argument. */
const CHECKOUT_REFERENCE_PARAMETER: Parameter = {
  name: 'checkout_reference',
  in: 'path',
  required: true,
  description: 'The `checkout_reference` the order was created with',
  schema: Type.String({ minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH }),
  example: 'order-2026-0002',
};

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

export const ordersApi: ApiRoutes<GatewayContext> = {
  tags: [
    {
      name: 'orders',
      description: 'Orders read back: their status, items, totals and, while unpaid, the payment link.',
    },
  ],
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/orders',
      operation: {
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
            schema: Type.Integer({ minimum: 1, maximum: ORDER_PAGE_MAX }),
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page; opaque',
            schema: Type.String({ minLength: 1, maxLength: 200 }),
          },
        ],
        responses: {
          '200': jsonResponse('A page of orders', OrderPage),
          '400': errorResponse('`limit` out of range, or a `cursor` this service did not issue'),
          '401': errorResponse('No valid session'),
        },
      },
      // Without a session the answer is 401, whatever the query says. The list is always the customer's own.
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res) => {
        const { userId: customer } = await requireSession(req, res, context);
        const { orders, nextCursor } = await context.clients.checkout.listOrders(
          {
            limit: req.query.limit === undefined ? 0 : Number(req.query.limit),
            cursor: req.query.cursor === undefined ? '' : String(req.query.cursor),
          },
          { customer },
        );
        res.setHeader('Cache-Control', 'no-store');
        res.json({ orders: orders.map(orderDetailsView), ...(nextCursor ? { nextCursor } : {}) });
      },
    }),
    apiRoute({
      method: 'get',
      path: '/api/orders/{checkout_reference}',
      operation: {
        operationId: 'getOrder',
        summary: 'One order by its checkout_reference: status, items, totals and the payment link while unpaid',
        description:
          "An order placed with a session is found only with that account's session: anyone else gets 404, as for a " +
          'reference that does not exist. An order placed without a session (a guest order) is shown ' +
          'to whoever holds its ' +
          'reference, without its delivery details. Look-ups are limited per client address (an IPv6 ' +
          'address by its /64).',
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
      handle: (context) => async (req, res) => {
        // Without a session only guest orders are found; an account's order needs its owner's.
        const customer = (await sessionOf(req, res, context))?.userId;
        const order = await getOrder(context, String(req.params.checkout_reference), {
          customer,
          clientAddress: clientAddress(req),
        });
        res.setHeader('Cache-Control', 'no-store');
        res.json(order);
      },
    }),
  ],
};
