/** The customer's refund notice, queued in the transaction that marks the refund succeeded, linking its credit note. */
import { formatCreditNoteNumber } from '@storefront/formats';
import { composeMail, type Mail } from '@storefront/outbox';
import { lineWords, type Order } from './order';
import type { Refund } from './refund';

/** One key per refund: however often success is recorded, one notice. */
export const refundMailKey = (refundId: string) => `refund:${refundId}`;

export function refundMail(order: Order, refund: Refund, publicBaseUrl: string): Mail {
  const money = (pence: number) =>
    new Intl.NumberFormat('en-GB', { style: 'currency', currency: order.currency }).format(pence / 100);
  const refundedPence = order.refundedPence + refund.amountPence;
  // The units taken back, by the names their lines were ordered under (decision 1297).
  const returned = refund.lines.map((unit) =>
    lineWords({ ...unit, itemName: order.lines.find((line) => line.sku === unit.sku)?.itemName }),
  );
  const orderUrl = `${publicBaseUrl.replace(/\/+$/, '')}/orders/${encodeURIComponent(order.reference)}`;
  return {
    key: refundMailKey(refund.id),
    to: order.delivery.email,
    ...composeMail({
      subject: `Refund of ${money(refund.amountPence)} for order ${order.number}`,
      blocks: [
        {
          paragraph:
            `Dear ${order.delivery.name}, we have refunded ${money(refund.amountPence)} of ` +
            `order ${order.reference} (order number ${order.number}) to the card you paid with. ` +
            'It may take a few days to appear on your statement.',
        },
        {
          rows: [
            ['Reason', refund.reason],
            ...(returned.length > 0 ? [['Returned', returned.join(', ')] as [string, string]] : []),
            ['This refund', money(refund.amountPence)],
            ['Refunded in all', money(refundedPence)],
            ['Order total', money(order.totalPence)],
          ],
        },
        {
          link: {
            label: 'Your order',
            url: orderUrl,
          },
        },
        ...(refund.creditNote
          ? [
              {
                link: {
                  label: `Credit note ${formatCreditNoteNumber(refund.creditNote.number)}`,
                  url: `${orderUrl}/credit-notes/${formatCreditNoteNumber(refund.creditNote.number)}`,
                },
              },
            ]
          : []),
      ],
    }),
  };
}
