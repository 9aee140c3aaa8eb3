/** The order confirmation mail, queued in the transaction that marks the order paid. */
import { composeMail, type Mail } from '@storefront/outbox';
import { formatLondonDate, type DispatchPromise } from '@storefront/dispatch-calendar';
import { lineWords, type Order } from './order';

/** One key per order: a second confirmation of the same payment queues nothing. */
export const orderConfirmationKey = (reference: string) => `order-confirmation:${reference}`;

/** The order's page on the shop, where its customer follows it. */
/** A page of the shop, as a link in a mail. */
const shopUrl = (publicBaseUrl: string, path: string) => `${publicBaseUrl.replace(/\/+$/, '')}${path}`;

export const orderPageUrl = (publicBaseUrl: string, reference: string) =>
  shopUrl(publicBaseUrl, `/orders/${encodeURIComponent(reference)}`);

/** The paid order's receipt on the shop (decision 1292). */
const receiptUrl = (publicBaseUrl: string, reference: string) => `${orderPageUrl(publicBaseUrl, reference)}/receipt`;

/** Said to the buyer of an order held for their confirmation (decision 1221). */
const UNCONFIRMED_WORDS =
  'Your order is held until you confirm on your order page (the link below) that these products are for laboratory ' +
  'research use only and that you are 18 or over. If you do not confirm within 7 days, it is cancelled and ' +
  'everything you paid is refunded.';

/** The right to cancel (Consumer Contracts Regulations 2013), as the order page and /returns state it. */
export const CANCELLATION_RIGHTS_WORDS =
  'Your right to cancel: until the order is dispatched, cancel it on its order page and the whole payment, ' +
  'delivery included, is refunded. After delivery you have 14 days to tell us (reply to this email) and 14 more ' +
  'to return unopened, sealed vials; we refund them, and the standard delivery charge when the whole order comes ' +
  'back. Vials opened after delivery cannot be returned.';

/** `expected` is absent while the order waits for stock: its dates follow when the stock comes. */
export function orderConfirmationMail(order: Order, publicBaseUrl: string, expected?: DispatchPromise): Mail {
  const money = (pence: number) =>
    new Intl.NumberFormat('en-GB', { style: 'currency', currency: order.currency }).format(pence / 100);
  const { delivery } = order;
  const address = [delivery.name, delivery.line1, delivery.line2, delivery.city, delivery.postcode, delivery.country]
    .filter(Boolean)
    .join(', ');
  const totals: Array<[string, string]> = [['Goods', money(order.goodsPence)]];
  if (order.discountPence > 0)
    totals.push([`Discount${order.promoCode ? ` (${order.promoCode})` : ''}`, `-${money(order.discountPence)}`]);
  totals.push(
    ['Shipping', order.shippingPence === 0 ? 'Free' : money(order.shippingPence)],
    ['Total', money(order.totalPence)],
  );
  return {
    key: orderConfirmationKey(order.reference),
    to: delivery.email,
    ...composeMail({
      subject: `Order ${order.number} is confirmed`,
      blocks: [
        {
          paragraph:
            `Thank you, ${delivery.name}. ` +
            `We have received your payment for order ${order.reference}, order number ${order.number}.`,
        },
        ...(order.stockWait === 'waiting'
          ? [
              {
                paragraph:
                  "Some of these items are in other shoppers' baskets. They come to you as soon as they are " +
                  'released, before any new order; if they do not come back, we refund everything you paid.',
              },
            ]
          : []),
        ...(order.buyerConfirmation === undefined ? [{ paragraph: UNCONFIRMED_WORDS }] : []),
        {
          rows: order.lines.map((line) => [lineWords(line), money(line.quantity * line.unitPricePence)]),
        },
        { rows: totals },
        { paragraph: `Delivery to: ${address}` },
        ...(expected
          ? [
              {
                paragraph:
                  `Expected dispatch: ${formatLondonDate(expected.dispatchOn)}. ` +
                  `Expected delivery: ${formatLondonDate(expected.deliveryOn)}.`,
              },
            ]
          : []),
        { paragraph: CANCELLATION_RIGHTS_WORDS },
        { link: { label: 'Your order', url: orderPageUrl(publicBaseUrl, order.reference) } },
        { link: { label: 'Your receipt', url: receiptUrl(publicBaseUrl, order.reference) } },
        { link: { label: 'Returns and cancellations', url: shopUrl(publicBaseUrl, '/returns') } },
      ],
    }),
  };
}
