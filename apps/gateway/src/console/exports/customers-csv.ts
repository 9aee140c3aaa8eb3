/**
 * The customers who signed up over a period of London days as CSV (decision 1315): identity records the export and
 * answers the period's bounds, then each page of accounts (newest first) is joined with its order counts from
 * checkout and its points from loyalty, asked at once, and written as it is ready.
 */
import { ACCOUNT_BATCH_MAX } from '@storefront/formats';
import type { GatewayContext } from '../../context';
import { csvLine, csvLondonMinute, writeCsvPages } from '../../kit/csv';
import type { DownloadSink } from '../../kit/download';
import type { StaffCaller } from '../../kit/staff-session';

const COLUMNS = ['email', 'name', 'created_london', 'orders', 'points'] as const;

export async function startCustomersExport(
  { clients }: Pick<GatewayContext, 'clients'>,
  staff: StaffCaller,
  period: { fromDate: string; toDate: string },
): Promise<(sink: DownloadSink) => Promise<void>> {
  const { createdFrom, createdUntil } = await clients.identity.recordCustomersExport(period, { staff });
  return (sink) =>
    writeCsvPages(sink, COLUMNS, async (cursor) => {
      const { customers, nextCursor } = await clients.identity.listCustomersForStaff(
        { createdFrom, createdUntil, limit: ACCOUNT_BATCH_MAX, cursor },
        { staff },
      );
      if (customers.length === 0) return { lines: [], next: nextCursor };
      const accountIds = customers.map((customer) => customer.id);
      const [{ counts }, { balances }] = await Promise.all([
        clients.checkout.countOrdersForStaff({ accountIds }, { staff }),
        clients.loyalty.getBalancesForStaff({ accountIds }, { staff }),
      ]);
      return {
        lines: customers.map((customer, index) =>
          csvLine([
            customer.email,
            `${customer.firstName} ${customer.lastName}`.trim(),
            csvLondonMinute(customer.createdAt),
            counts[index]!.orders,
            balances[index]!.points,
          ]),
        ),
        next: nextCursor,
      };
    });
}
