import { LINE_QUANTITY_MAX, ORDER_AMOUNT_MAX_POUNDS, ORDER_LINES_MAX, ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { crossSiteResponse, errorResponse, jsonBodyRefusals, jsonResponse, ref, serviceFailures, type ApiArea } from '../area';
import { ORDER_STATUSES } from './orders';

/** A date, or a date-time with a zone, as the console's filters take them. */
export const INSTANT = { type: 'string', minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$' };
export const STAFF_ONLY = [{ staffCookie: [] }];
export const staffRefusals = {
  '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
  ...serviceFailures(),
};

export const adminArea: ApiArea = {
  tags: [{ name: 'admin', description: "The shop's staff: reading orders and refunding them from the console. Needs the `svc_staff` cookie of a staff login at /console/login." }],
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
        refunds: { type: 'array', items: ref('Refund'), description: 'Every refund asked for, oldest first, whatever became of it; absent when none was' },
        dispatchedBy: { type: 'string', description: 'The staff member (email) who dispatched it; absent until dispatched' },
        cancelledAt: { type: 'string', format: 'date-time', description: 'When a staff member cancelled it unpaid' },
      },
    },
    DispatchRequest: {
      type: 'object',
      required: ['carrier', 'trackingNumber'],
      additionalProperties: false,
      properties: {
        carrier: { type: 'string', minLength: 1, maxLength: 60, example: 'Royal Mail' },
        trackingNumber: { type: 'string', minLength: 1, maxLength: 60, pattern: '^[A-Za-z0-9 -]+$', description: 'Letters, digits, spaces and dashes', example: 'RM 1234-5678 GB' },
      },
    },
    RefundRequest: {
      type: 'object',
      description: 'A refund through the payment provider. The same `idempotencyKey` with the same request answers the same refund; with another request it is refused.',
      required: ['amount', 'reason', 'idempotencyKey'],
      additionalProperties: false,
      properties: {
        amount: { type: 'number', exclusiveMinimum: 0, maximum: ORDER_AMOUNT_MAX_POUNDS, description: 'GBP to give back, to the penny: at most what was paid less earlier refunds' },
        reason: { type: 'string', minLength: 1, maxLength: 200, description: "Why; the customer's refund mail shows it" },
        lines: {
          type: 'array',
          maxItems: ORDER_LINES_MAX,
          description: 'Lines whose units go back to stock, each at most the quantity ordered less what earlier refunds returned',
          items: {
            type: 'object',
            required: ['sku', 'quantity'],
            additionalProperties: false,
            properties: { sku: { type: 'string', minLength: 1, maxLength: 100 }, quantity: { type: 'integer', minimum: 1, maximum: LINE_QUANTITY_MAX } },
          },
        },
        idempotencyKey: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$', description: 'Chosen by the client, one per refund' },
      },
    },
    Refund: {
      type: 'object',
      required: ['id', 'amount', 'reason', 'lines', 'state', 'createdBy', 'createdAt', 'updatedAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        amount: { type: 'number', description: 'GBP' },
        reason: { type: 'string' },
        lines: { type: 'array', items: { type: 'object', required: ['sku', 'quantity'], additionalProperties: false, properties: { sku: { type: 'string' }, quantity: { type: 'integer' } } } },
        state: { type: 'string', enum: ['pending', 'succeeded', 'failed'], description: '`pending` until the payment provider confirms it (the shop reads its record and settles it)' },
        failureCode: { type: 'string', description: "The payment provider's error code, for a failed refund" },
        createdBy: { type: 'string', description: 'The email of the staff member who asked' },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    RefundResult: {
      type: 'object',
      required: ['refund', 'order'],
      additionalProperties: false,
      properties: { refund: ref('Refund'), order: ref('StaffOrder') },
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
          { name: 'status', in: 'query', required: false, description: 'Only orders in this status', schema: { type: 'string', enum: ORDER_STATUSES } },
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
    '/api/admin/orders/{checkout_reference}/dispatch': {
      post: staffOrderAction({
        operationId: 'adminDispatchOrder',
        example: 'order-2026-0004',
        summary: 'Dispatch a paid order with its carrier and tracking number (staff)',
        description: 'The order becomes `dispatched` and its customer is mailed the carrier, tracking number and order link, once. Sending the same carrier and tracking number again answers the order unchanged.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('DispatchRequest') } } },
        invalid: '`invalid_carrier` or `invalid_tracking_number`: the field named is empty, too long or has other characters',
        refused: '`order_not_dispatchable`: the order is not paid (or partly refunded), or its payment is still being settled; `order_already_dispatched`: it was dispatched with other details',
      }),
    },
    '/api/admin/orders/{checkout_reference}/delivered': {
      post: staffOrderAction({
        operationId: 'adminMarkOrderDelivered',
        example: 'order-2026-0005',
        summary: 'Mark a dispatched order delivered (staff)',
        description: 'The order becomes `delivered`; repeating it answers the order unchanged.',
        refused: '`order_not_deliverable`: the order is not dispatched',
      }),
    },
    '/api/admin/orders/{checkout_reference}/cancel': {
      post: staffOrderAction({
        operationId: 'adminCancelOrder',
        example: 'order-2026-0006',
        summary: 'Cancel an unpaid order (staff)',
        description:
          'The payment link stops taking payments, and the stock and code the order held are given back at once; the order becomes `cancelled`. ' +
          'If the payment arrived meanwhile, the cancel is refused and the order is paid. Repeating it answers the order unchanged.',
        refused: '`order_not_cancellable`: the order is not awaiting payment (or was paid meanwhile); `request_in_progress`: its payment link is being made, try again shortly',
        providerFailure: '`provider_unavailable`: the payment provider could not be asked to stop the payment link; nothing changed, retry',
      }),
    },
    '/api/admin/orders/{checkout_reference}/refunds': {
      post: {
        operationId: 'adminRefundOrder',
        summary: 'Refund an order in full or in part through the payment provider (owner)',
        description:
          'Gives `amount` back to the card the order was paid with and returns the chosen lines to stock; the customer is mailed ' +
          "and the order's points are reversed in proportion. Never more than was paid; one refund of an order is settled at a time.",
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'checkout_reference',
            in: 'path',
            required: true,
            description: 'The `checkout_reference` the order was created with',
            schema: { type: 'string', minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH },
            example: 'order-2026-0004',
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref('RefundRequest'), example: { amount: 1.5, reason: 'One vial arrived damaged', idempotencyKey: 'refund-2026-0004-1' } } },
        },
        responses: {
          '201': jsonResponse('Refunded: the provider confirmed it', 'RefundResult'),
          '202': jsonResponse('Sent, not yet confirmed by the provider (its answer was lost or late); the refund is `pending` and settled from its record', 'RefundResult'),
          '400': errorResponse('A field missing or malformed, an amount in fractions of a penny, or lines not in the order or beyond what is left to return'),
          '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
          '403': { ...crossSiteResponse, description: '`staff_role_refused`: only the owner refunds; or `cross_site_request`' },
          '404': errorResponse('`order_not_found`: no order with this reference'),
          '409': errorResponse('`order_not_refundable` (not paid, or refunded in full), `order_not_settled` (its payment is still being confirmed), `refund_in_progress` (another refund of it is unsettled) or `idempotency_mismatch` (the key was used for another refund)'),
          '422': errorResponse('`refund_exceeds_paid`: more than is left to refund; or `refund_refused`: the payment provider refused it (its code in the detail), nothing was refunded'),
          '502': errorResponse('`provider_unavailable`: the payment provider could not be reached'),
          ...jsonBodyRefusals,
          ...serviceFailures(),
        },
      },
    },
  },
};

interface StaffOrderAction {
  operationId: string;
  /** The path's example reference. */
  example: string;
  summary: string;
  description: string;
  requestBody?: Record<string, unknown>;
  invalid?: string;
  refused: string;
  providerFailure?: string;
}

/** A POST that changes one order for a staff member of either role and answers it. */
function staffOrderAction({ operationId, example, summary, description, requestBody, invalid, refused, providerFailure }: StaffOrderAction) {
  return {
    operationId,
    summary,
    description,
    tags: ['admin'],
    security: STAFF_ONLY,
    parameters: [{ name: 'checkout_reference', in: 'path', required: true, description: 'The `checkout_reference` the order was created with', schema: { type: 'string', minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH }, example }],
    ...(requestBody ? { requestBody } : {}),
    responses: {
      '200': jsonResponse('The order as it is now', 'StaffOrder'),
      '400': errorResponse(`${invalid ? `${invalid}; or ` : ''}the checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`),
      '403': crossSiteResponse,
      '404': errorResponse('`order_not_found`: no order with this reference'),
      '409': errorResponse(refused),
      ...(requestBody ? jsonBodyRefusals : {}),
      ...(providerFailure ? { '502': errorResponse(providerFailure) } : {}),
      ...staffRefusals,
    },
  };
}
