/** The dispatch notice, queued in the transaction that marks the order dispatched. */
import { composeMail, type Mail } from '@storefront/outbox';
import type { DispatchDetails, Order } from './order';
import { orderPageUrl } from './order-mail';

/** One key per order: however often it is dispatched, its customer is told once. */
export const dispatchNoticeKey = (reference: string) => `dispatch:${reference}`;

export function dispatchNoticeMail(order: Order, details: DispatchDetails, publicBaseUrl: string): Mail {
  return {
    key: dispatchNoticeKey(order.reference),
    to: order.delivery.email,
    ...composeMail({
      subject: `Order ${order.reference} is on its way`,
      blocks: [
        { paragraph: `Good news, ${order.delivery.name}: order ${order.reference} has been dispatched.` },
        {
          rows: [
            ['Carrier', details.carrier],
            ['Tracking number', details.trackingNumber],
          ],
        },
        { link: { label: 'Your order', url: orderPageUrl(publicBaseUrl, order.reference) } },
      ],
    }),
  };
}
