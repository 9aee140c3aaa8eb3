/**
 * The overview's sums, each an aggregate statement over an index (migration 091): orders paid and refunds as one
 * range sum a day each (a range read in index order, cheaper than grouping thousands of rows by an expression); SKUs
 * sold by joining the paid orders' lines; the orders waiting for dispatch by status.
 */
import { toNumber, type Knex } from '@storefront/db';
import { DISPATCHABLE_STATUSES, type OrderStatus } from '../domain/order';
import type { AwaitingDispatch, DaySums, SalesStore as SalesStorePort, SkuSales } from '../domain/sales-overview';

type Row = Record<string, unknown>;

export class SalesStore implements SalesStorePort {
  constructor(private readonly db: Knex) {}

  async salesByDay(dayStarts: readonly number[], until: number): Promise<DaySums[]> {
    return Promise.all(
      dayStarts.map(async (start, index) => {
        const end = dayStarts[index + 1] ?? until + 1;
        const [paid, refunded]: Array<Row | undefined> = await Promise.all([
          this.db('orders')
            .count({ orders: '*' })
            .sum({ pence: 'total_pence' })
            .where('paid_at', '>=', start)
            .andWhere('paid_at', '<', end)
            .first(),
          this.db('refunds')
            .count({ refunds: '*' })
            .sum({ pence: 'amount_pence' })
            .where({ state: 'succeeded' })
            .andWhere('created_at', '>=', start)
            .andWhere('created_at', '<', end)
            .first(),
        ]);
        return {
          ordersPaid: toNumber(paid?.orders),
          revenuePence: toNumber(paid?.pence),
          refunds: toNumber(refunded?.refunds),
          refundedPence: toNumber(refunded?.pence),
        };
      }),
    );
  }

  async skuSales(from: number, until: number): Promise<SkuSales[]> {
    const rows: Row[] = await this.db('orders as o')
      .join('order_lines as l', 'l.order_id', 'o.id')
      .select('l.sku')
      .sum({ units: 'l.quantity' })
      .sum({ pence: this.db.raw('?? * ??', ['l.quantity', 'l.unit_price_pence']) })
      .where('o.paid_at', '>=', from)
      .andWhere('o.paid_at', '<=', until)
      .groupBy('l.sku')
      .orderBy([
        { column: 'pence', order: 'desc' },
        { column: 'l.sku', order: 'asc' },
      ]);
    return rows.map((row) => ({ sku: String(row.sku), units: toNumber(row.units), revenuePence: toNumber(row.pence) }));
  }

  async awaitingDispatch(): Promise<AwaitingDispatch> {
    const row = await this.db('orders')
      .count({ orders: '*' })
      .min({ oldest: 'paid_at' })
      .whereIn('status', DISPATCHABLE_STATUSES as OrderStatus[])
      .whereNull('customer_cancelled_at')
      .first();
    const oldest = row?.oldest;
    return {
      count: toNumber(row?.orders ?? 0),
      ...(oldest === null || oldest === undefined ? {} : { oldestPaidAt: toNumber(oldest) }),
    };
  }
}
