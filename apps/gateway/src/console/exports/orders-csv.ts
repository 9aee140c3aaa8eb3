/**
 * The orders placed over a period of London days as CSV (decision 1315): checkout records the export in its staff
 * audit log and answers the period's bounds, then the orders are read a page at a time with the staff order list and
 * each page written as it arrives, so an export of any size is never held whole.
 */
import { londonTime } from '@storefront/dispatch-calendar';
import { ORDER_PAGE_MAX } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { csvHeader, csvLine } from '../../kit/csv';
import type { DownloadSink } from '../../kit/download';
import type { StaffCaller } from '../../kit/staff-session';

const COLUMNS = [
  'number',
  'placed_london',
  'email',
  'status',
  'goods',
  'discount',
  'shipping',
  'total',
  'refunded',
] as const;

/** Pence as a spreadsheet reads pounds: 1234 is 12.34. */
const pounds = (pence: number) => `${Math.trunc(pence / 100)}.${String(pence % 100).padStart(2, '0')}`;

/** An instant as London's wall clock reads it, to the minute: 2026-03-29 02:30. */
function londonMinute(rfc3339: string): string {
  const { date, minutes } = londonTime(Date.parse(rfc3339));
  return `${date} ${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

function orderLine({ details }: checkout.StaffOrder): string {
  const order = details!.summary!;
  return csvLine([
    order.orderNumber,
    londonMinute(details!.createdAt),
    details!.delivery?.email ?? '',
    order.status,
    pounds(order.goodsPence),
    pounds(order.discountPence),
    pounds(order.shippingPence),
    pounds(order.totalPence),
    pounds(details!.refundedPence),
  ]);
}

/**
 * Records the export with checkout (which refuses a period that is not one before anything is written) and answers
 * the writer of the CSV, newest order first.
 */
export async function startOrdersExport(
  { clients }: Pick<GatewayContext, 'clients'>,
  staff: StaffCaller,
  period: { fromDate: string; toDate: string },
): Promise<(sink: DownloadSink) => Promise<void>> {
  const { createdFrom, createdUntil } = await clients.checkout.recordOrdersExport(period, { staff });
  return async (sink) => {
    await sink(csvHeader(COLUMNS));
    let cursor = '';
    do {
      const page = await clients.checkout.listOrdersForStaff(
        {
          query: '',
          status: '',
          accountId: '',
          awaitingBuyerConfirmation: false,
          createdFrom,
          createdUntil,
          limit: ORDER_PAGE_MAX,
          cursor,
        },
        { staff },
      );
      if (page.orders.length > 0) await sink(page.orders.map(orderLine).join(''));
      cursor = page.nextCursor;
    } while (cursor);
  };
}
