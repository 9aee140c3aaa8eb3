/** Orders in the words the pages and the console show them in. */
import type { checkout } from '@storefront/proto';
import { formatLondonDate } from '@storefront/dispatch-calendar';

export const STATUS_WORDS: Record<string, string> = {
  pending_payment: 'Awaiting payment',
  paid: 'Paid',
  failed: 'Payment failed',
  expired: 'Expired: no payment was received in time',
  cancelled: 'Cancelled',
  dispatched: 'Dispatched',
  delivered: 'Delivered',
  partially_refunded: 'Partly refunded',
  refunded: 'Refunded',
};

/** The status in words, with what stock had to do with it: waiting for held units, or closed for their sake. */
export function orderStatusWords(order: checkout.OrderSummary): string {
  const status = STATUS_WORDS[order.status] ?? order.status;
  if (order.closeReason === 'stock_never_came') return 'Refunded: the held units never came back';
  if (order.closeReason === 'released_to_another_buyer')
    return 'Expired: not paid within its hold, its units went to another buyer';
  return order.waitingForStock ? `${status}, waiting for stock` : status;
}

/** What a buyer who chose to pay and wait is promised; empty for any other order. */
export function stockWaitWords(order: checkout.OrderSummary): string {
  if (!order.waitingForStock) return '';
  const promise =
    'ahead of any new order, as soon as holds in other baskets end; if they never come back, the ' +
    'order is refunded in full';
  return order.status === 'pending_payment'
    ? `This order holds no stock: the units are in other baskets. Paid, it gets them ${promise}.`
    : `Paid and waiting for stock: the order gets its units ${promise}.`;
}

/** How the order left the shop, in words; empty before it is dispatched. */
export function dispatchWords({ dispatch }: checkout.OrderDetails): string {
  if (!dispatch) return '';
  const tracking = dispatch.trackingNumber ? `, tracking ${dispatch.trackingNumber}` : '';
  return (
    'Dispatched with ' +
    `${dispatch.carrier}${tracking}${dispatch.deliveredAt ? `; delivered ${dispatch.deliveredAt.slice(0, 10)}` : ''}`
  );
}

/**
 * When a paid order that has not left yet is expected to leave and arrive, as checkout promised it at payment
 * (docs/decisions/1170); empty otherwise.
 */
export function expectedDispatchWords({
  summary,
  expectedDispatchOn,
  expectedDeliveryOn,
}: checkout.OrderDetails): string {
  if (summary?.status !== 'paid' || !expectedDispatchOn || !expectedDeliveryOn) return '';
  return (
    `Expected dispatch: ${formatLondonDate(expectedDispatchOn)}. Expected delivery: ` +
    `${formatLondonDate(expectedDeliveryOn)}.`
  );
}
