/**
 * The overview's sums, each one aggregate statement over an index (migration 091): orders paid and refunds by the
 * hour (a London day is always whole hours, so the domain adds the hours up into days: at most 721 rows); SKUs sold by
 * joining the paid orders' lines; the orders waiting for dispatch by status.
 */
import { dialectOf, toNumber, type Knex } from '@storefront/db';
import { DISPATCHABLE_STATUSES, type OrderStatus } from '../domain/order';
import type { AwaitingDispatch, DaySums, SalesStore as SalesStorePort, SkuSales } from '../domain/sales-overview';

type Row = Record<string, unknown>;

const HOUR_MS = 60 * 60 * 1000;

/** Whole hours since `from`, as an integer on either backend (MySQL's `/` would answer a decimal). */
function hourOf(db: Knex, column: string, from: number): Knex.Raw {
  return dialectOf(db) === 'mysql'
    ? db.raw('(?? - ?) DIV ? as hour', [column, from, HOUR_MS])
    : db.raw('(?? - ?) / ? as hour', [column, from, HOUR_MS]);
}

export class SalesStore implements SalesStorePort {
  constructor(private readonly db: Knex) {}

  async salesByHour(from: number, until: number): Promise<Map<number, DaySums>> {
    const [paid, refunded]: [Row[], Row[]] = await Promise.all([
      this.db('orders')
        .select(hourOf(this.db, 'paid_at', from))
        .count({ orders: '*' })
        .sum({ pence: 'total_pence' })
        .where('paid_at', '>=', from)
        .andWhere('paid_at', '<=', until)
        .groupBy('hour'),
      this.db('refunds')
        .select(hourOf(this.db, 'created_at', from))
        .count({ refunds: '*' })
        .sum({ pence: 'amount_pence' })
        .where({ state: 'succeeded' })
        .andWhere('created_at', '>=', from)
        .andWhere('created_at', '<=', until)
        .groupBy('hour'),
    ]);
    const hours = new Map<number, DaySums>();
    const hourAt = (index: number): DaySums => {
      const found = hours.get(index) ?? { ordersPaid: 0, revenuePence: 0, refunds: 0, refundedPence: 0 };
      hours.set(index, found);
      return found;
    };
    for (const row of paid) {
      const hour = hourAt(toNumber(row.hour));
      hour.ordersPaid = toNumber(row.orders);
      hour.revenuePence = toNumber(row.pence);
    }
    for (const row of refunded) {
      const hour = hourAt(toNumber(row.hour));
      hour.refunds = toNumber(row.refunds);
      hour.refundedPence = toNumber(row.pence);
    }
    return hours;
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
