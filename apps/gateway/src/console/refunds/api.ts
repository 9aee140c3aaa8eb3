/**
 * The admin API's refunds: the `svc_staff` session first, then the body; owner only (checkout decides). A refund the
 * provider has not confirmed yet is accepted (202); the sweep settles it.
 */
import { invalidArgument } from '@storefront/errors';
import { LINE_QUANTITY_MAX, ORDER_AMOUNT_MAX_POUNDS, ORDER_LINES_MAX } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { Refund, refundView, StaffOrder, staffOrderView } from '../../application/staff-orders';
import { crossSiteResponse, errorResponse, jsonBodyRefusals, jsonResponse, serviceFailures } from '../../kit/api-docs';
import { apiRoute, type ApiRoutes } from '../../kit/routes';
import { component, PlainText, Type, type Static } from '../../kit/schema';
import { requireStaff, type StaffCaller } from '../../kit/staff-session';
import { orderReferenceParameter, sendStaffAnswer, STAFF_ONLY, staffFirst } from '../staff-api';

export const RefundRequest = component(
  'RefundRequest',
  Type.Object(
    {
      amount: Type.Number({
        exclusiveMinimum: 0,
        maximum: ORDER_AMOUNT_MAX_POUNDS,
        description: 'GBP to give back, to the penny: at most what was paid less earlier refunds',
      }),
      reason: PlainText({
        minLength: 1,
        maxLength: 200,
        description: "Why; the customer's refund mail shows it. No control characters (line breaks, tabs and the like)",
      }),
      lines: Type.Optional(
        Type.Array(
          Type.Object(
            {
              sku: Type.String({ minLength: 1, maxLength: 100 }),
              quantity: Type.Integer({ minimum: 1, maximum: LINE_QUANTITY_MAX }),
            },
            { additionalProperties: false },
          ),
          {
            maxItems: ORDER_LINES_MAX,
            description:
              'Lines whose units go back to stock, each at most the quantity ordered less what ' +
              'earlier refunds returned',
          },
        ),
      ),
      idempotencyKey: Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'Chosen by the client, one per refund',
      }),
    },
    {
      description:
        'A refund through the payment provider. The same `idempotencyKey` with the same request ' +
        'answers the same refund; with another request it is refused.',
      additionalProperties: false,
    },
  ),
);

const RefundResult = component(
  'RefundResult',
  Type.Object({ refund: Refund, order: StaffOrder }, { additionalProperties: false }),
);

/** The admin API's refund request: money in GBP, as everywhere in the API. */
export type RefundBody = Static<typeof RefundRequest>;

/** Pounds to whole pence; an amount with fractions of a penny is refused rather than rounded. */
export function refundAmountToPence(amount: number): number {
  const pence = Math.round(amount * 100);
  if (!Number.isFinite(amount) || pence < 1 || Math.abs(amount * 100 - pence) > 1e-6) {
    throw invalidArgument(`amount must be at least 0.01 and a whole number of pence, got ${amount}`, 'invalid_amount');
  }
  return pence;
}

export function refundOrder(
  { clients }: GatewayContext,
  checkoutReference: string,
  body: RefundBody,
  staff: StaffCaller,
): Promise<checkout.RefundOrderResponse> {
  return clients.checkout.refundOrder(
    {
      checkoutReference,
      amountPence: refundAmountToPence(body.amount),
      reason: body.reason,
      lines: (body.lines ?? []).map(({ sku, quantity }) => ({ sku, quantity })),
      idempotencyKey: body.idempotencyKey,
    },
    { staff },
  );
}

export const consoleRefundsApi: ApiRoutes<GatewayContext> = {
  routes: [
    apiRoute({
      method: 'post',
      path: '/api/admin/orders/{checkout_reference}/refunds',
      operation: {
        operationId: 'adminRefundOrder',
        summary: 'Refund an order in full or in part through the payment provider (owner)',
        description:
          'Gives `amount` back to the card the order was paid with and returns the chosen lines to stock; the ' +
          "customer is mailed and the order's points are reversed in proportion. Never more than was paid; one " +
          'refund of an order is settled at a time.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [orderReferenceParameter('order-2026-0007')],
        responses: {
          '201': jsonResponse('Refunded: the provider confirmed it', RefundResult),
          '202': jsonResponse(
            'Sent, not yet confirmed by the provider (its answer was lost or late); the refund is ' +
              '`pending` and settled from its record',
            RefundResult,
          ),
          '400': errorResponse(
            'A field missing or malformed, an amount in fractions of a penny, or lines not in the ' +
              'order or beyond what is left to return',
          ),
          '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
          '403': {
            ...crossSiteResponse,
            description: '`staff_role_refused`: only the owner refunds; or `cross_site_request`',
          },
          '404': errorResponse('`order_not_found`: no order with this reference'),
          '409': errorResponse(
            '`order_not_refundable` (not paid, or refunded in full), `order_not_settled` (its ' +
              'payment is still being confirmed), `refund_in_progress` (another refund of it is unsettled) or ' +
              '`idempotency_mismatch` (the key was used for another refund)',
          ),
          '422': errorResponse(
            '`refund_exceeds_paid`: more than is left to refund; or `refund_refused`: the payment ' +
              'provider refused it (its code in the detail), nothing was refunded',
          ),
          '502': errorResponse('`provider_unavailable`: the payment provider could not be reached'),
          ...jsonBodyRefusals,
          ...serviceFailures(),
        },
      },
      body: {
        schema: RefundRequest,
        example: { amount: 1.5, reason: 'One vial arrived damaged', idempotencyKey: 'refund-2026-0007-1' },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res, body) => {
        const staff = await requireStaff(req, res, context);
        const { refund, order } = await refundOrder(context, String(req.params.checkout_reference), body, staff);
        sendStaffAnswer(
          res,
          { refund: refundView(refund!), order: staffOrderView(order!) },
          refund!.state === 'succeeded' ? 201 : 202,
        );
      },
    }),
  ],
};
