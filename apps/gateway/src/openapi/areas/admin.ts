import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { errorResponse, jsonResponse, ref, serviceFailures, type ApiArea } from '../area';

/** A date, or a date-time with a zone, as the console's filters take them. */
export const INSTANT = { type: 'string', minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$' };
export const STAFF_ONLY = [{ staffCookie: [] }];
export const staffRefusals = {
  '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
  ...serviceFailures(),
};

export const adminArea: ApiArea = {
  tags: [{ name: 'admin', description: "The shop's staff: reading orders from the console. Needs the `svc_staff` cookie of a staff login at /console/login." }],
  schemas: {
    StaffOrder: {
      type: 'object',
      description: 'An order as the shop sees it: as `OrderDetails` with its delivery details always, and what checkout recorded of its account, promo, points and payment.',
      required: ['order', 'provider'],
      additionalProperties: false,
      properties: {
        order: ref('OrderDetails'),
        accountId: { type: 'string', description: 'The account that placed it; absent for a guest order' },
        promoCode: { type: 'string', description: 'The promo or reward code it was priced with' },
        paidAt: { type: 'string', format: 'date-time', description: 'When the payment was confirmed; absent while unpaid' },
        pointsAwardedAt: { type: 'string', format: 'date-time', description: "When the order's loyalty points were awarded; absent until they are" },
        provider: { type: 'string', description: 'The payment provider' },
        providerCheckoutId: { type: 'string', description: "The provider's checkout id; absent before one was made" },
      },
    },
    StaffOrderPage: {
      type: 'object',
      required: ['orders'],
      additionalProperties: false,
      properties: {
        orders: { type: 'array', items: ref('StaffOrder'), description: 'Newest first' },
        nextCursor: { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page' },
      },
    },
  },
  paths: {
    '/api/admin/orders': {
      get: {
        operationId: 'adminListOrders',
        summary: 'Every order, newest first, searched and filtered (staff)',
        description: 'A page at a time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          { name: 'q', in: 'query', required: false, description: 'An exact order reference, or an email address (any letter case)', schema: { type: 'string', minLength: 1, maxLength: 254 } },
          { name: 'status', in: 'query', required: false, description: 'Only orders in this status', schema: { type: 'string', enum: ['pending_payment', 'paid', 'failed', 'expired'] } },
          { name: 'from', in: 'query', required: false, description: 'Orders created at or after this date (midnight UTC) or date-time with a zone', schema: INSTANT },
          { name: 'until', in: 'query', required: false, description: 'Orders created before this date (midnight UTC) or date-time with a zone', schema: INSTANT },
          { name: 'limit', in: 'query', required: false, description: 'Orders per page (default 20)', schema: { type: 'integer', minimum: 1, maximum: ORDER_PAGE_MAX } },
          { name: 'cursor', in: 'query', required: false, description: 'The `nextCursor` of the previous page; opaque', schema: { type: 'string', minLength: 1, maxLength: 200 } },
        ],
        responses: {
          '200': jsonResponse('A page of orders', 'StaffOrderPage'),
          '400': errorResponse('A parameter out of range or malformed, or a `cursor` this service did not issue'),
          ...staffRefusals,
        },
      },
    },
    '/api/admin/orders/{checkout_reference}': {
      get: {
        operationId: 'adminGetOrder',
        summary: 'One order in full by its reference (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'checkout_reference',
            in: 'path',
            required: true,
            description: 'The `checkout_reference` the order was created with',
            schema: { type: 'string', minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH },
            example: 'order-2026-0003',
          },
        ],
        responses: {
          '200': jsonResponse('The order', 'StaffOrder'),
          '400': errorResponse(`The checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`),
          '404': errorResponse('`order_not_found`: no order with this reference'),
          ...staffRefusals,
        },
      },
    },
  },
};
