/**
 * The stock movements of a period of London days as CSV (decision 1319): inventory records the export in its staff
 * audit log and answers the period's bounds, then its ledger is read a page at a time, oldest first, so the units on
 * hand after each movement read as a running count, and each page is written as it arrives.
 */
import { STOCK_MOVEMENT_PAGE_MAX } from '@storefront/formats';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { csvLine, csvLondonMinute, writeCsvPages } from '../../kit/csv';
import type { DownloadSink } from '../../kit/download';
import type { StaffCaller } from '../../kit/staff-session';

const COLUMNS = ['occurred_london', 'sku', 'units', 'on_hand_after', 'reason', 'reference'] as const;

const movementLine = (movement: inventory.StockMovement): string =>
  csvLine([
    csvLondonMinute(movement.occurredAt),
    movement.sku,
    movement.units,
    movement.onHandAfter,
    movement.reason,
    movement.reference,
  ]);

/** Records the export with inventory (which refuses a period that is not one) and answers the writer of the CSV. */
export async function startStockMovementsExport(
  { clients }: Pick<GatewayContext, 'clients'>,
  staff: StaffCaller,
  period: { fromDate: string; toDate: string },
): Promise<(sink: DownloadSink) => Promise<void>> {
  const { occurredFrom, occurredUntil } = await clients.inventory.recordStockMovementsExport(period, { staff });
  return (sink) =>
    writeCsvPages(sink, COLUMNS, async (cursor) => {
      const page = await clients.inventory.listStockMovements(
        { occurredFrom, occurredUntil, limit: STOCK_MOVEMENT_PAGE_MAX, cursor },
        { staff },
      );
      return { lines: page.movements.map(movementLine), next: page.nextCursor };
    });
}
