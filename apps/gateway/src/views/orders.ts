/**
 * Orders and their payment links as the public API shows them: money in GBP, delivery details for the order's account
 * only.
 */
import type { checkout } from '@storefront/proto';
import { penceToPounds as pounds } from '../kit/money';
import type { Static } from '../kit/schema';
import type { Dispatch, OrderDetails } from '../openapi/areas/orders';

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

export type DispatchView = Static<typeof Dispatch>;

/** How the order left the shop; the tracking number and delivery time only when there are. */
export function dispatchView(dispatch: checkout.Dispatch): DispatchView {
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

/**
 * The create-checkout answer: the provider checkout's documented fields (SumUp's names; absent
 * optional ones are left out of the JSON), then `order_saved` and the order.
 */
export function checkoutResultView(provider: checkout.ProviderCheckout, order: checkout.OrderSummary) {
  return {
    id: provider.id,
    checkout_reference: provider.checkoutReference,
    amount: pounds(provider.amountPence),
    currency: provider.currency,
    merchant_code: provider.merchantCode,
    description: provider.description,
    return_url: provider.returnUrl,
    redirect_url: provider.redirectUrl,
    status: provider.status,
    date: provider.date,
    valid_until: provider.validUntil,
    hosted_checkout_url: provider.hostedCheckoutUrl,
    order_saved: true as const,
    order: orderView(order),
  };
}
