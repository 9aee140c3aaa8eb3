/**
 * The business at a glance for the console's home, asked of the components that own each figure, for the staff
 * member: sales, refunds, SKUs sold and orders waiting for dispatch from checkout (its aggregates), the stock of each
 * stock-limited size from inventory, the points outstanding from loyalty. The edge only adds up checkout's days into
 * periods and sets each size's stock against the rate it sold at (decision 1335).
 */
import type { checkout, inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';

/** The periods the overview sums, by how many of checkout's days (today last) each takes. */
export const PERIODS = [
  { name: 'Today', days: 1 },
  { name: 'Last 7 days', days: 7 },
  { name: 'Last 30 days', days: 30 },
] as const;
/** The products the top-products chart shows. */
export const TOP_PRODUCTS = 8;
/** A stock-limited size is running low below this many units available, */
export const LOW_STOCK_UNITS = 10;
/** or when it would sell out within this many days at the last 30 days' rate. */
export const LOW_STOCK_DAYS = 14;

export interface PeriodFigures {
  name: string;
  ordersPaid: number;
  revenuePence: number;
  /** Revenue over orders paid, to the penny; 0 when none was. */
  averageOrderPence: number;
  refunds: number;
  refundedPence: number;
}

export interface ProductSales {
  sku: string;
  /** The product's name and size, or the SKU when the catalog no longer has it. */
  name: string;
  units: number;
  revenuePence: number;
}

export interface LowStockSize {
  sku: string;
  name: string;
  available: number;
  soldLast30Days: number;
  /** Available units over the daily rate of the last 30 days; undefined when none sold. */
  daysLeft?: number;
}

export interface BusinessOverview {
  periods: PeriodFigures[];
  /** The last 30 London days, oldest first. */
  days: checkout.SalesDay[];
  /** The TOP_PRODUCTS SKUs with the highest revenue over the last 30 days, highest first. */
  topProducts: ProductSales[];
  awaitingDispatch: { count: number; oldestPaidAt?: number };
  /** Sizes running low, soonest out first. */
  lowStock: LowStockSize[];
  points: { outstanding: number; accounts: number };
  asOf: number;
}

const sizeName = (product: inventory.StaffProduct, size: inventory.StaffSku) => `${product.name} ${size.size}`;

function periodFigures(days: readonly checkout.SalesDay[]): PeriodFigures[] {
  return PERIODS.map(({ name, days: count }) => {
    const taken = days.slice(-count);
    const sum = (pick: (day: checkout.SalesDay) => number) => taken.reduce((total, day) => total + pick(day), 0);
    const ordersPaid = sum((day) => day.ordersPaid);
    const revenuePence = sum((day) => day.revenuePence);
    return {
      name,
      ordersPaid,
      revenuePence,
      averageOrderPence: ordersPaid === 0 ? 0 : Math.round(revenuePence / ordersPaid),
      refunds: sum((day) => day.refunds),
      refundedPence: sum((day) => day.refundedPence),
    };
  });
}

/** Each stock-limited size under LOW_STOCK_UNITS available or LOW_STOCK_DAYS of sales, soonest out first. */
export function lowStockSizes(
  products: readonly inventory.StaffProduct[],
  unitsSold: ReadonlyMap<string, number>,
  days: number,
): LowStockSize[] {
  const sizes = products.flatMap((product) =>
    product.sizes
      .filter((size) => !size.unlimited)
      .map((size) => {
        const soldLast30Days = unitsSold.get(size.sku) ?? 0;
        const daysLeft = soldLast30Days > 0 ? size.available / (soldLast30Days / days) : undefined;
        return { sku: size.sku, name: sizeName(product, size), available: size.available, soldLast30Days, daysLeft };
      }),
  );
  return sizes
    .filter((size) => size.available < LOW_STOCK_UNITS || (size.daysLeft ?? Infinity) < LOW_STOCK_DAYS)
    .sort((a, b) => (a.daysLeft ?? Infinity) - (b.daysLeft ?? Infinity) || a.available - b.available)
    .map(({ daysLeft, ...size }) => (daysLeft === undefined ? size : { ...size, daysLeft }));
}

export async function businessOverview(
  { clients }: Pick<GatewayContext, 'clients'>,
  staff: StaffCaller,
): Promise<BusinessOverview> {
  const [sales, catalog, points] = await Promise.all([
    clients.checkout.getSalesOverview({}, { staff }),
    clients.inventory.getStaffCatalog({}, { staff }),
    clients.loyalty.getPointsOutstanding({}, { staff }),
  ]);
  const names = new Map(
    catalog.products.flatMap((product) => product.sizes.map((size) => [size.sku, sizeName(product, size)] as const)),
  );
  const unitsSold = new Map(sales.skus.map((sku) => [sku.sku, sku.units]));
  return {
    periods: periodFigures(sales.days),
    days: sales.days,
    topProducts: sales.skus.slice(0, TOP_PRODUCTS).map((sku) => ({
      sku: sku.sku,
      name: names.get(sku.sku) ?? sku.sku,
      units: sku.units,
      revenuePence: sku.revenuePence,
    })),
    awaitingDispatch: {
      count: sales.awaitingDispatch,
      ...(sales.oldestAwaitingPaidAt ? { oldestPaidAt: Date.parse(sales.oldestAwaitingPaidAt) } : {}),
    },
    lowStock: lowStockSizes(catalog.products, unitsSold, sales.days.length),
    points: { outstanding: points.points, accounts: points.accountsHoldingPoints },
    asOf: Date.parse(sales.asOf),
  };
}
