/**
 * A batch's recall list: every order inventory allocated units of the batch to, oldest sale first, each with the
 * contact e-mail checkout holds for it, and the list as CSV. One workflow across inventory and checkout, shared by the
 * console (page, CSV, admin API, recall notices) and the platform's `batch orders` ops command (decision 1280).
 */
import { AppError } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { csvHeader, csvLine } from '../kit/csv';
import type { StaffCaller } from '../kit/staff-session';

/** An order that shipped units of a batch, with whom to tell of a recall. */
export interface BatchOrderView {
  reference: string;
  soldAt: string;
  units: number;
  /** Of those, units a refund put back on the batch. */
  returned: number;
  /** The order's delivery e-mail; empty when checkout no longer has the order. */
  email: string;
}

/** Orders read from inventory per page; a recall list is read whole. */
const BATCH_ORDERS_PAGE = 500;

type Clients = Pick<GatewayContext['clients'], 'inventory' | 'checkout'>;

/** Every order inventory allocated units of the batch to, oldest sale first, with its contact e-mail. */
export async function batchRecallList(clients: Clients, staff: StaffCaller, number: string): Promise<BatchOrderView[]> {
  const all: inventory.BatchOrder[] = [];
  for (let after = { afterSoldAt: '', afterOrderReference: '' }; ;) {
    const page = await clients.inventory.listBatchOrders({ number, limit: BATCH_ORDERS_PAGE, ...after }, { staff });
    all.push(...page.orders);
    const last = page.orders.at(-1);
    if (!page.more || !last) break;
    after = { afterSoldAt: last.soldAt, afterOrderReference: last.orderReference };
  }
  return Promise.all(
    all.map(async (order) => ({
      reference: order.orderReference,
      soldAt: order.soldAt,
      units: order.units,
      returned: order.returned,
      email: await contactOf(clients, staff, order.orderReference),
    })),
  );
}

async function contactOf(clients: Clients, staff: StaffCaller, checkoutReference: string): Promise<string> {
  try {
    const { order } = await clients.checkout.getOrderForStaff({ checkoutReference }, { staff });
    return order?.details?.delivery?.email ?? '';
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not_found') return '';
    throw error;
  }
}

const CSV_COLUMNS = ['order', 'sold_at', 'units', 'returned', 'email'] as const;

/** The recall list as CSV (RFC 4180, CRLF lines, a header row). */
export function batchOrdersCsv(orders: BatchOrderView[]): string {
  const rows = orders.map((order) =>
    csvLine([order.reference, order.soldAt, order.units, order.returned, order.email]),
  );
  return [csvHeader(CSV_COLUMNS), ...rows].join('');
}
