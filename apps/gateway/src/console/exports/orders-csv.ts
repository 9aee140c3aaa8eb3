/**
 * The orders placed over a period of London days as CSV (decision 1315): checkout records the export in its staff
 * audit log and answers the period's bounds, then the orders are read a page at a time with the staff order list and
 * each page written as it arrives, so an export of any size is never held whole.
 */
import { ORDER_PAGE_MAX } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { csvLine, csvLondonMinute, csvPounds, writeCsvPages } from '../../kit/csv';
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

function orderLine({ details }: checkout.StaffOrder): string {
  const order = details!.summary!;
  return csvLine([
    order.orderNumber,
    csvLondonMinute(details!.createdAt),
    details!.delivery?.email ?? '',
    order.status,
    csvPounds(order.goodsPence),
    csvPounds(order.discountPence),
    csvPounds(order.shippingPence),
    csvPounds(order.totalPence),
    csvPounds(details!.refundedPence),
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
  return (sink) =>
    writeCsvPages(sink, COLUMNS, async (cursor) => {
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
      return { lines: page.orders.map(orderLine), next: page.nextCursor };
    });
}
