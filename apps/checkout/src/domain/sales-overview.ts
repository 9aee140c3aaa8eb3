/**
 * The console's overview of the business as checkout knows it: per London day of the last 30, the orders paid, what
 * they were paid and the refunds that succeeded; what each SKU sold over those days; and the paid orders still waiting
 * to leave. Every figure is an aggregate the store computes (decision 1335); no order is read into memory.
 */
import { addDays, londonInstant, londonTime } from '@storefront/dispatch-calendar';

/** The overview's days: today so far and the 29 London days before it. */
export const OVERVIEW_DAYS = 30;

/** Sums over one day. */
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

/** What the overview asks of checkout's store: sums for each day from its start to the next's, the last to `until`. */
export interface SalesStore {
  salesByDay(dayStarts: readonly number[], until: number): Promise<DaySums[]>;
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
    const [byDay, skus, awaitingDispatch] = await Promise.all([
      this.store.salesByDay(
        days.map((day) => day.start),
        asOf,
      ),
      this.store.skuSales(from, asOf),
      this.store.awaitingDispatch(),
    ]);
    return {
      days: days.map(({ date }, index) => ({ date, ...byDay[index]! })),
      skus,
      awaitingDispatch,
      asOf,
    };
  }
}
