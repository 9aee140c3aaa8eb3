/**
 * Orders as the public API shows them (money in GBP, delivery details for the order's account only), and reading one
 * back: shared by the orders API, the checkout's answer, the console and the MCP tools.
 */
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { Caller } from '../kit/caller';
import { penceToPounds as pounds } from '../kit/money';
import { component, PlainText, StringEnum, Type, type Static } from '../kit/schema';

const gbp = () => Type.Number({ description: 'GBP' });

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

export const Delivery = component(
  'Delivery',
  Type.Object(
    {
      name: PlainText({ minLength: 1, maxLength: 200 }),
      email: Type.String({ format: 'email', maxLength: 254 }),
      phone: Type.Optional(PlainText({ maxLength: 40 })),
      line1: PlainText({ minLength: 1, maxLength: 200 }),
      line2: Type.Optional(PlainText({ maxLength: 200 })),
      city: PlainText({ minLength: 1, maxLength: 100 }),
      postcode: PlainText({ minLength: 1, maxLength: 16 }),
      country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2; GB only' }),
    },
    {
      description:
        'Where the order goes. The shop delivers in the UK only. No field may hold control characters (line breaks, tabs and the like).',
      additionalProperties: false,
    },
  ),
);

export const OrderLineView = component(
  'OrderLineView',
  Type.Object({
    sku: Type.String(),
    quantity: Type.Integer(),
    unitPrice: Type.Number({ description: 'GBP' }),
  }),
);

export const OrderSummary = component(
  'OrderSummary',
  Type.Object(
    {
      id: Type.String(),
      reference: Type.String(),
      items: Type.Array(OrderLineView),
      goods: Type.Number(),
      discount: Type.Number(),
      shipping: Type.Number(),
      total: Type.Number(),
      currency: Type.String(),
      status: StringEnum(ORDER_STATUSES),
      reservedUntil: Type.String({
        format: 'date-time',
        description: 'Stock is held until then; the payment link stops working at the same time',
      }),
    },
    { description: 'The saved order; money in GBP.' },
  ),
);

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

export function orderView(order: checkout.OrderSummary) {
  return {
    id: order.id,
    reference: order.reference,
    items: order.items.map((line) => ({
      sku: line.sku,
      quantity: line.quantity,
      unitPrice: pounds(line.unitPricePence),
    })),
    goods: pounds(order.goodsPence),
    discount: pounds(order.discountPence),
    shipping: pounds(order.shippingPence),
    total: pounds(order.totalPence),
    currency: order.currency,
    status: order.status,
    reservedUntil: order.reservedUntil,
  };
}

export type OrderDetailsView = Static<typeof OrderDetails>;

/** How the order left the shop; the tracking number and delivery time only when there are. */
export function dispatchView(dispatch: checkout.Dispatch): Static<typeof Dispatch> {
  return {
    carrier: dispatch.carrier,
    ...(dispatch.trackingNumber ? { trackingNumber: dispatch.trackingNumber } : {}),
    dispatchedAt: dispatch.dispatchedAt,
    ...(dispatch.deliveredAt ? { deliveredAt: dispatch.deliveredAt } : {}),
  };
}

/** Fields the order does not have yet (a stock hold, a live payment link) are left out rather than empty. */
export function orderDetailsView(details: checkout.OrderDetails): OrderDetailsView {
  const { reservedUntil, ...summary } = orderView(details.summary!);
  return {
    ...summary,
    ...(reservedUntil ? { reservedUntil } : {}),
    ...(details.paymentLink ? { paymentLink: details.paymentLink } : {}),
    createdAt: details.createdAt,
    updatedAt: details.updatedAt,
    ...(details.delivery ? { delivery: details.delivery } : {}),
    ...(details.dispatch ? { dispatch: dispatchView(details.dispatch) } : {}),
    ...(details.refundedPence > 0 ? { refunded: pounds(details.refundedPence) } : {}),
  };
}

/** One order, read with the caller's session (or none) and client address, within checkout's look-up limits. */
export async function getOrder({ clients }: GatewayContext, checkoutReference: string, caller: Caller) {
  const { order } = await clients.checkout.getOrder(
    { checkoutReference, clientAddress: caller.clientAddress },
    { customer: caller.customer },
  );
  return orderDetailsView(order!);
}
