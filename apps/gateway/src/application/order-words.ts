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

/** How the order left the shop, in words; empty before it is dispatched. */
export function dispatchWords({ dispatch }: checkout.OrderDetails): string {
  if (!dispatch) return '';
  const tracking = dispatch.trackingNumber ? `, tracking ${dispatch.trackingNumber}` : '';
  return `Dispatched with ${dispatch.carrier}${tracking}${dispatch.deliveredAt ? `; delivered ${dispatch.deliveredAt.slice(0, 10)}` : ''}`;
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
  return `Expected dispatch: ${formatLondonDate(expectedDispatchOn)}. Expected delivery: ${formatLondonDate(expectedDeliveryOn)}.`;
}
