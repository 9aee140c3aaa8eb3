/**
 * The admin API's orders: every order searched and filtered, one order in full, and the changes staff of either role
 * make to one (dispatch, delivered, cancel). The staff session first (401), then a change from another site is
 * refused (the staff cookie is SameSite=Strict; this holds for browsers that send it anyway), then the body.
 */
import type { Request } from 'express';
import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { ORDER_STATUSES } from '../../application/orders';
import { recordPackedBatches } from '../../application/packing';
import { orderForStaff, StaffOrder, staffOrderView } from '../../application/staff-orders';
import { crossSiteResponse, errorResponse, jsonBodyRefusals, jsonResponse } from '../../kit/api-docs';
import { rejectCrossSiteWrites } from '../../kit/customer-session';
import { apiRoute, type ApiRoutes, type Operation } from '../../kit/routes';
import { component, PlainText, StringEnum, Type, type Static } from '../../kit/schema';
import { requireStaff, STAFF_COOKIE, type StaffCaller } from '../../kit/staff-session';
import type { Parameter } from '../../kit/validator';
import {
  instant,
  orderReferenceParameter,
  queryText,
  sendStaffAnswer,
  STAFF_ONLY,
  staffFirst,
  staffRefusals,
} from '../staff-api';

/** The filters of the order list, as the admin API and the console's search form take them. */
export const STAFF_ORDER_PARAMETERS: Parameter[] = [
  {
    name: 'q',
    in: 'query',
    required: false,
    description: 'An exact order reference, or an email address (any letter case)',
    schema: Type.String({ minLength: 1, maxLength: 254 }),
  },
  {
    name: 'status',
    in: 'query',
    required: false,
    description: 'Only orders in this status',
    schema: StringEnum(ORDER_STATUSES),
  },
  {
    name: 'held',
    in: 'query',
    required: false,
    description:
      '`yes`: only paid orders held because their buyer has not confirmed the research-use and age statements',
    schema: StringEnum(['yes']),
  },
  {
    name: 'from',
    in: 'query',
    required: false,
    description: 'Orders created at or after this date (midnight UTC) or date-time with a zone',
    schema: instant(),
  },
  {
    name: 'until',
    in: 'query',
    required: false,
    description: 'Orders created before this date (midnight UTC) or date-time with a zone',
    schema: instant(),
  },
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

const StaffOrderPage = component(
  'StaffOrderPage',
  Type.Object(
    {
      orders: Type.Array(StaffOrder, { description: 'Newest first' }),
      nextCursor: Type.Optional(
        Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' }),
      ),
    },
    { additionalProperties: false },
  ),
);

const DispatchRequest = component(
  'DispatchRequest',
  Type.Object(
    {
      carrier: PlainText({
        minLength: 1,
        maxLength: 60,
        description: 'Any text without control characters (line breaks, tabs and the like)',
        example: 'Royal Mail',
      }),
      trackingNumber: Type.String({
        minLength: 1,
        maxLength: 60,
        pattern: '^[A-Za-z0-9 -]+$',
        description: 'Letters, digits, spaces and dashes',
        example: 'RM 1234-5678 GB',
      }),
      packedBatches: Type.Optional(
        Type.Array(
          Type.Object(
            {
              sku: Type.String({ minLength: 1, maxLength: 100 }),
              batch: Type.String({ minLength: 1, maxLength: 40, description: 'The batch number on the vials packed' }),
            },
            { additionalProperties: false },
          ),
          {
            maxItems: 100,
            description:
              "Lines packed from another batch than the one inventory allocated: each line's units are recorded as " +
              'taken from it before the dispatch',
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export type DispatchInput = Static<typeof DispatchRequest>;

type Clients = Pick<GatewayContext, 'clients'>;

/** The list's filters as strings, the limit as a number; their shapes are checked already. */
function staffOrderQuery(req: Request) {
  const limit = queryText(req, 'limit');
  return {
    query: queryText(req, 'q') ?? '',
    status: queryText(req, 'status') ?? '',
    createdFrom: queryText(req, 'from') ?? '',
    createdUntil: queryText(req, 'until') ?? '',
    limit: limit === undefined ? 0 : Number(limit),
    cursor: queryText(req, 'cursor') ?? '',
    accountId: '',
    awaitingBuyerConfirmation: queryText(req, 'held') === 'yes',
  };
}

/** A page of orders as checkout answers it (money in pence), for the console's list and the API's view alike. */
export function ordersForStaff(
  { clients }: Clients,
  req: Request,
  staff: StaffCaller,
): Promise<checkout.ListOrdersForStaffResponse> {
  return clients.checkout.listOrdersForStaff(staffOrderQuery(req), { staff });
}

/** A staff member's dispatch, delivery and cancel of an order, shared by the API and the console: one call each. */
export async function dispatchOrder(
  { clients }: Clients,
  checkoutReference: string,
  { carrier, trackingNumber, packedBatches = [] }: DispatchInput,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  // The batches packed are recorded first: once dispatched, the order's batches no longer change.
  const packed = new Map(packedBatches.map(({ sku, batch }) => [sku, batch]));
  await recordPackedBatches({ clients }, checkoutReference, packed, staff);
  return (await clients.checkout.dispatchOrder({ checkoutReference, carrier, trackingNumber }, { staff })).order!;
}

export async function markOrderDelivered(
  { clients }: Clients,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.markOrderDelivered({ checkoutReference }, { staff })).order!;
}

export async function cancelOrder(
  { clients }: Clients,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.cancelOrder({ checkoutReference }, { staff })).order!;
}

interface StaffOrderAction {
  operationId: string;
  /** The path's example reference. */
  example: string;
  summary: string;
  description: string;
  /** What a refused body is, for a change that takes one. */
  invalid?: string;
  refused: string;
  providerFailure?: string;
}

/** The documentation of a POST that changes one order for a staff member of either role and answers it. */
function staffOrderAction({
  operationId,
  example,
  summary,
  description,
  invalid,
  refused,
  providerFailure,
}: StaffOrderAction): Operation {
  return {
    operationId,
    summary,
    description,
    tags: ['admin'],
    security: STAFF_ONLY,
    parameters: [orderReferenceParameter(example)],
    responses: {
      '200': jsonResponse('The order as it is now', StaffOrder),
      '400': errorResponse(
        `${invalid ? `${invalid}; or ` : ''}the checkout_reference is longer than ` +
          `${ORDER_REFERENCE_MAX_LENGTH} characters`,
      ),
      '403': crossSiteResponse,
      '404': errorResponse('`order_not_found`: no order with this reference'),
      '409': errorResponse(refused),
      ...(invalid ? jsonBodyRefusals : {}),
      ...(providerFailure ? { '502': errorResponse(providerFailure) } : {}),
      ...staffRefusals,
    },
  };
}

/** The staff session first, then the same-site rule for the staff cookie. */
const staffChange = (context: GatewayContext) => [
  staffFirst(context),
  rejectCrossSiteWrites(context.config, STAFF_COOKIE),
];

export const consoleOrdersApi: ApiRoutes<GatewayContext> = {
  tags: [
    {
      name: 'admin',
      description:
        "The shop's staff: reading orders and refunding them from the console. Needs the `svc_staff` cookie of a " +
        'staff login at /console/login.',
    },
  ],
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/admin/orders',
      operation: {
        operationId: 'adminListOrders',
        summary: 'Every order, newest first, searched and filtered (staff)',
        description: 'A page at a time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: STAFF_ORDER_PARAMETERS,
        responses: {
          '200': jsonResponse('A page of orders', StaffOrderPage),
          '400': errorResponse('A parameter out of range or malformed, or a `cursor` this service did not issue'),
          ...staffRefusals,
        },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        const { orders, nextCursor } = await ordersForStaff(context, req, await requireStaff(req, res, context));
        sendStaffAnswer(res, { orders: orders.map(staffOrderView), ...(nextCursor ? { nextCursor } : {}) });
      },
    }),
    apiRoute({
      method: 'get',
      path: '/api/admin/orders/{checkout_reference}',
      operation: {
        operationId: 'adminGetOrder',
        summary: 'One order in full by its reference (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [orderReferenceParameter('order-2026-0003')],
        responses: {
          '200': jsonResponse('The order', StaffOrder),
          '400': errorResponse(`The checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`),
          '404': errorResponse('`order_not_found`: no order with this reference'),
          ...staffRefusals,
        },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        sendStaffAnswer(
          res,
          staffOrderView(await orderForStaff(context, String(req.params.checkout_reference), staff)),
        );
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/orders/{checkout_reference}/dispatch',
      operation: staffOrderAction({
        operationId: 'adminDispatchOrder',
        example: 'order-2026-0004',
        summary: 'Dispatch a paid order with its carrier and tracking number (staff)',
        description:
          'The order becomes `dispatched`, inventory records its batches as shipped, and its customer is mailed ' +
          "the carrier, tracking number, each batch's certificate link and the order link, once. Sending the same " +
          'carrier and tracking number again answers the order unchanged.',
        invalid:
          '`invalid_carrier` or `invalid_tracking_number`: the field named is empty, too long or has other characters',
        refused:
          '`order_not_dispatchable`: the order is not paid (or partly refunded), or its payment is ' +
          'still being settled; `order_already_dispatched`: it was dispatched with other details; ' +
          '`batch_short`: a batch in `packedBatches` lacks the units (nothing is dispatched)',
      }),
      body: { schema: DispatchRequest },
      before: staffChange,
      handle: (context) => async (req, res, body) => {
        const staff = await requireStaff(req, res, context);
        const order = await dispatchOrder(context, String(req.params.checkout_reference), body, staff);
        sendStaffAnswer(res, staffOrderView(order));
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/orders/{checkout_reference}/delivered',
      operation: staffOrderAction({
        operationId: 'adminMarkOrderDelivered',
        example: 'order-2026-0005',
        summary: 'Mark a dispatched order delivered (staff)',
        description: 'The order becomes `delivered`; repeating it answers the order unchanged.',
        refused: '`order_not_deliverable`: the order is not dispatched',
      }),
      before: staffChange,
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        const order = await markOrderDelivered(context, String(req.params.checkout_reference), staff);
        sendStaffAnswer(res, staffOrderView(order));
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/orders/{checkout_reference}/cancel',
      operation: staffOrderAction({
        operationId: 'adminCancelOrder',
        example: 'order-2026-0006',
        summary: 'Cancel an unpaid order (staff)',
        description:
          'The payment link stops taking payments, and the stock and code the order held are given ' +
          'back at once; the order becomes `cancelled`. ' +
          'If the payment arrived meanwhile, the cancel is refused and the order is paid. Repeating ' +
          'it answers the order unchanged.',
        refused:
          '`order_not_cancellable`: the order is not awaiting payment (or was paid meanwhile); ' +
          '`request_in_progress`: its payment link is being made, try again shortly',
        providerFailure:
          '`provider_unavailable`: the payment provider could not be asked to stop the payment link; ' +
          'nothing changed, retry',
      }),
      before: staffChange,
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        const order = await cancelOrder(context, String(req.params.checkout_reference), staff);
        sendStaffAnswer(res, staffOrderView(order));
      },
    }),
  ],
};
