/**
 * Orders as the public API shows them (money in GBP, delivery details for the order's account only), and reading one
 * back: shared by the orders API, the checkout's answer, the console and the MCP tools.
 */
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { Caller } from '../kit/caller';
import { certificatePdfUrl } from './certificates';
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
        'Where the order goes. The shop delivers in the UK only. No field may hold control ' +
        'characters (line breaks, tabs and the like).',
      additionalProperties: false,
    },
  ),
);

export const ShippedBatch = component(
  'ShippedBatch',
  Type.Object(
    {
      number: Type.String({ description: 'The batch number printed on the vials' }),
      quantity: Type.Integer({ minimum: 1, description: 'Units of the line packed from this batch' }),
      certificateUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
        description: "The batch's certificate of analysis (PDF); null when the certificate is on request",
      }),
    },
    { additionalProperties: false },
  ),
);

export const OrderLineView = component(
  'OrderLineView',
  Type.Object({
    sku: Type.String(),
    quantity: Type.Integer(),
    unitPrice: Type.Number({ description: 'GBP' }),
    batches: Type.Optional(
      Type.Array(ShippedBatch, {
        description:
          'In an order read back: the batches the units were packed from, once the order is ' +
          'dispatched; empty before, ' +
          'and for sizes whose stock is not counted in batches',
      }),
    ),
  }),
);

/** Why an order closed, when its pages say so (decision 1082). */
const CLOSE_REASONS = ['released_to_another_buyer', 'stock_never_came'];

/** The fields of an order that waits for stock or closed for a reason of stock, in both order shapes. */
const stockWaitFields = {
  waitingForStock: Type.Optional(
    Type.Literal(true, {
      description:
        'Present when the buyer chose to pay and wait (`wait_for_stock`): the order holds no stock; ' +
        'once paid it gets ' +
        "its units as other baskets' holds end, before any new order, or is refunded in full. Absent otherwise.",
    }),
  ),
  closeReason: Type.Optional(
    StringEnum(CLOSE_REASONS, {
      description:
        'Why the order closed, when stock was the reason: `released_to_another_buyer` (unpaid past ' +
        'its firm period, its ' +
        'units went to a buyer short of them), `stock_never_came` (paid while waiting for stock that ' +
        'never came back: ' +
        'refunded in full). Absent otherwise.',
    }),
  ),
};

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
        description:
          'Stock is held until then; the payment link stops working at the same time. An order waiting for stock ' +
          '(`waitingForStock`) holds none: it is when its payment link stops working.',
      }),
      ...stockWaitFields,
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
            "The carrier's tracking number; only for the account that placed the order (a guest has it in the " +
            'dispatch mail)',
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
            "The provider's hosted payment page, for a person to pay on; present only while the order is pending " +
            'and its stock held',
        }),
      ),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
      delivery: Type.Optional(Delivery),
      dispatch: Type.Optional(Dispatch),
      refunded: Type.Optional(Type.Number({ description: 'GBP refunded so far; absent when nothing was' })),
      ...stockWaitFields,
      expectedDispatchOn: Type.Optional(
        Type.String({
          format: 'date',
          description: 'The London date a paid order is expected to leave, promised when it was paid; absent before',
        }),
      ),
      expectedDeliveryOn: Type.Optional(
        Type.String({ format: 'date', description: 'The London date it is expected to arrive: the next working day' }),
      ),
    },
    {
      description:
        'An order as saved, with its status. Money in GBP. `status`: `pending_payment` until the ' +
        'payment is confirmed, ' +
        'then `paid`, or `failed` (declined) or `expired` (the payment link ran out unpaid); the ' +
        'shop may cancel an unpaid ' +
        'order (`cancelled`), and a paid one goes on to `dispatched` and `delivered` (refunded in ' +
        'part `partially_refunded`, in full `refunded`; `refunded` says how much). ' +
        '`delivery` is shown only to the account that placed the order, never for a guest order; so ' +
        'is `dispatch.trackingNumber`.',
      additionalProperties: false,
    },
  ),
);

/** A delivery address's lines before its country, as pages and documents print them: an empty second line left out. */
export function addressLinesBeforeCountry(delivery: checkout.Delivery): string[] {
  return [delivery.name, delivery.line1, ...(delivery.line2 ? [delivery.line2] : []), delivery.city, delivery.postcode];
}

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
    ...(order.waitingForStock ? { waitingForStock: true as const } : {}),
    ...(order.closeReason ? { closeReason: order.closeReason } : {}),
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
    ...(details.expectedDispatchOn ? { expectedDispatchOn: details.expectedDispatchOn } : {}),
    ...(details.expectedDeliveryOn ? { expectedDeliveryOn: details.expectedDeliveryOn } : {}),
  };
}

export type ShippedBatchView = Static<typeof ShippedBatch>;

/**
 * Per SKU, the batches a dispatched order's units were packed from, with their certificates; none before dispatch,
 * when staff may still record another batch. Only for an order the caller was allowed to read.
 */
export async function shippedBatches(
  { clients, config }: Pick<GatewayContext, 'clients' | 'config'>,
  details: checkout.OrderDetails,
): Promise<Map<string, ShippedBatchView[]>> {
  if (!details.dispatch) return new Map();
  const { allocation } = await clients.inventory.getOrderAllocation({ orderReference: details.summary!.reference });
  const lines = allocation?.lines ?? [];
  const numbers = [...new Set(lines.flatMap((line) => line.batches.map((batch) => batch.number)))];
  const withCertificate = new Set(
    (await Promise.all(numbers.map((number) => clients.inventory.getBatch({ number }))))
      .filter(({ batch }) => batch?.certificate)
      .map(({ batch }) => batch!.number),
  );
  return new Map(
    lines.map((line) => [
      line.sku,
      line.batches
        .filter((batch) => batch.units > 0)
        .map((batch) => ({
          number: batch.number,
          quantity: batch.units,
          certificateUrl: withCertificate.has(batch.number)
            ? certificatePdfUrl(batch.number, config.publicBaseUrl)
            : null,
        })),
    ]),
  );
}

/**
 * One order, read with the caller's session (or none) and client address, within checkout's look-up limits; each line
 * with the batches it was packed from.
 */
export async function getOrder(context: GatewayContext, checkoutReference: string, caller: Caller) {
  const { order } = await context.clients.checkout.getOrder(
    { checkoutReference, clientAddress: caller.clientAddress },
    { customer: caller.customer },
  );
  const view = orderDetailsView(order!);
  const batches = await shippedBatches(context, order!);
  return { ...view, items: view.items.map((line) => ({ ...line, batches: batches.get(line.sku) ?? [] })) };
}
