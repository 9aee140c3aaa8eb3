/**
 * The console's overview of the business as checkout knows it: per London day of the last 30, the orders paid, what
 * they were paid and the refunds that succeeded; what each SKU sold over those days; and the paid orders still waiting
 * to leave. Every figure is an aggregate the store computes (decision 1335); no order is read into memory.
 */
import { addDays, londonInstant, londonTime } from '@storefront/dispatch-calendar';

const HOUR_MS = 60 * 60 * 1000;

/** The overview's days: today so far and the 29 London days before it. */
export const OVERVIEW_DAYS = 30;

/** Sums over one day, or over one hour as the store answers them. */
export interface DaySums {
  ordersPaid: number;
  revenuePence: number;
  refunds: number;
  refundedPence: number;
}

export interface SalesDay extends DaySums {
  /** YYYY-MM-DD in Europe/London. */
  date: string;
}

export interface SkuSales {
  sku: string;
  units: number;
  revenuePence: number;
}

export interface AwaitingDispatch {
  count: number;
  /** When the longest-waiting order was paid; undefined when none waits or its payment time was never recorded. */
  oldestPaidAt?: number;
}

export interface SalesOverview {
  days: SalesDay[];
  /** Highest revenue first. */
  skus: SkuSales[];
  awaitingDispatch: AwaitingDispatch;
  asOf: number;
}

/** What the overview asks of checkout's store: sums over [from, until], by whole hours since `from`. */
export interface SalesStore {
  salesByHour(from: number, until: number): Promise<Map<number, DaySums>>;
  skuSales(from: number, until: number): Promise<SkuSales[]>;
  awaitingDispatch(): Promise<AwaitingDispatch>;
}

/** The London dates of the overview's days, oldest first, and the instant each begins. */
export function overviewDays(now: number, days = OVERVIEW_DAYS): Array<{ date: string; start: number }> {
  const today = londonTime(now).date;
  return Array.from({ length: days }, (_, index) => {
    const date = addDays(today, index - days + 1);
    return { date, start: londonInstant(date, 0) };
  });
}

export class SalesOverviewReader {
  constructor(
    private readonly store: SalesStore,
    private readonly now: () => number,
  ) {}

  async read(): Promise<SalesOverview> {
    const asOf = this.now();
    const days = overviewDays(asOf);
    const from = days[0]!.start;
    const [byHour, skus, awaitingDispatch] = await Promise.all([
      this.store.salesByHour(from, asOf),
      this.store.skuSales(from, asOf),
      this.store.awaitingDispatch(),
    ]);
    const sums: SalesDay[] = days.map(({ date }) => ({
      date,
      ordersPaid: 0,
      revenuePence: 0,
      refunds: 0,
      refundedPence: 0,
    }));
    for (const [hour, hourSums] of byHour) {
      const at = from + hour * HOUR_MS;
      const day = sums[days.findLastIndex((candidate) => candidate.start <= at)]!;
      day.ordersPaid += hourSums.ordersPaid;
      day.revenuePence += hourSums.revenuePence;
      day.refunds += hourSums.refunds;
      day.refundedPence += hourSums.refundedPence;
    }
    return {
      days: sums,
      skus,
      awaitingDispatch,
      asOf,
    };
  }
}
