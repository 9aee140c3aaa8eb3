/** The dispatch notice, queued once inventory has recorded which batches the order shipped from. */
import { composeMail, type Mail } from '@storefront/outbox';
import type { DispatchDetails, Order } from './order';
import { orderPageUrl } from './order-mail';
import type { ShippedAllocation } from './ports';

/** One key per order: however often it is dispatched, its customer is told once. */
export const dispatchNoticeKey = (reference: string) => `dispatch:${reference}`;

/** The public page of a batch's certificate of analysis. */
export const certificatePageUrl = (publicBaseUrl: string, batch: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}/certificates/${encodeURIComponent(batch)}`;

/** Each batch the order's units came from, once, in the order of its lines. */
function shippedBatches(allocation: ShippedAllocation): string[] {
  return [
    ...new Set(
      allocation.lines.flatMap((line) => line.batches.filter((batch) => batch.units > 0).map((b) => b.number)),
    ),
  ];
}

export function dispatchNoticeMail(
  order: Order,
  details: DispatchDetails,
  allocation: ShippedAllocation,
  publicBaseUrl: string,
): Mail {
  const batches = shippedBatches(allocation);
  return {
    key: dispatchNoticeKey(order.reference),
    to: order.delivery.email,
    ...composeMail({
      subject: `Order ${order.number} is on its way`,
      blocks: [
        {
          paragraph:
            `Good news, ${order.delivery.name}: ` +
            `order ${order.reference} (order number ${order.number}) has been dispatched.`,
        },
        {
          rows: [
            ['Carrier', details.carrier],
            ['Tracking number', details.trackingNumber],
          ],
        },
        ...(batches.length > 0
          ? [
              {
                paragraph:
                  'Your vials come from these batches; each batch number is printed on the vial and ' +
                  'its certificate of analysis is online:',
              },
              ...batches.map((batch) => ({
                link: { label: `Batch ${batch} certificate`, url: certificatePageUrl(publicBaseUrl, batch) },
              })),
            ]
          : []),
        { link: { label: 'Your order', url: orderPageUrl(publicBaseUrl, order.reference) } },
      ],
    }),
  };
}
