/**
 * Orders as the console's staff read them: every order, whoever placed it, with its delivery
 * details; searched by exact reference or order number, or by email, filtered by status, creation date and account,
 * newest first with the same keyset cursor as a customer's list. Read-only: nothing here
 * changes an order. The caller is a staff member the gateway vouched for (the access table).
 */
import { invalidArgument, notFound } from '@storefront/errors';
import { ACCOUNT_BATCH_MAX, ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { instantOption } from '@storefront/lifecycle';
import { ORDER_STATUSES, type Order, type OrderStatus, type PaymentPosition } from './order';
import {
  decodeCursor,
  decodePositionCursor,
  encodeCursor,
  encodePositionCursor,
  type OrderPage,
  type OrderReader,
  type OrderView,
} from './orders';
import type { CheckoutStore, RefundStore, StaffOrderFilter } from './ports';
import type { Refund } from './refund';

const DEFAULT_PAGE_SIZE = 20;
/** As long as the orders table's account_id column. */
const ACCOUNT_ID_MAX_LENGTH = 64;

/** The console's search as it asks it: every field as text, empty when not given. */
export interface StaffOrderQuery {
  /** An exact reference, or an email (any case) when it has an @. */
  query: string;
  status: string;
  createdFrom: string;
  createdUntil: string;
  accountId: string;
  limit: number;
  cursor: string;
  /** Only paid orders held for their buyer's confirmation. */
  awaitingBuyerConfirmation: boolean;
}

/** An order as staff see it: whole, as its owner sees it, with its refunds (in a page of orders, none). */
export interface StaffOrderView {
  order: Order;
  details: OrderView;
  refunds: Refund[];
}

export class StaffOrderReader {
  constructor(
    private readonly store: CheckoutStore,
    private readonly reader: OrderReader,
    private readonly refunds: RefundStore,
  ) {}

  async list(request: StaffOrderQuery): Promise<OrderPage<StaffOrderView>> {
    const { cursor } = request;
    const pageSize = pageSizeOf(request.limit);
    const after = cursor === '' ? undefined : decodeCursor(cursor);
    const found = await this.store.ordersForStaff(parseFilter(request), pageSize + 1, after);
    const page = found.slice(0, pageSize);
    const last = page.at(-1);
    return {
      orders: page.map((order) => this.view(order)),
      nextCursor: found.length > pageSize && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : '',
    };
  }

  /** How many orders each account placed, in the order asked; 0 for none (the console's customer export). */
  async orderCounts(accountIds: string[]): Promise<Array<{ accountId: string; orders: number }>> {
    if (accountIds.length === 0 || accountIds.length > ACCOUNT_BATCH_MAX)
      throw invalidArgument(`account_ids must name 1 to ${ACCOUNT_BATCH_MAX} accounts`);
    if (accountIds.some((id) => id === '' || id.length > ACCOUNT_ID_MAX_LENGTH))
      throw invalidArgument(`each of account_ids must be 1 to ${ACCOUNT_ID_MAX_LENGTH} characters`);
    const counted = await this.store.orderCountsOf(accountIds);
    return accountIds.map((accountId) => ({ accountId, orders: counted.get(accountId) ?? 0 }));
  }

  /** The dispatch queue: paid orders waiting to leave, oldest payment first, a page at a time. */
  async dispatchQueue({ limit, cursor }: { limit: number; cursor: string }): Promise<OrderPage<StaffOrderView>> {
    const pageSize = pageSizeOf(limit);
    const after = cursor === '' ? undefined : decodePaymentCursor(cursor);
    const found = await this.store.ordersAwaitingDispatch(pageSize + 1, after);
    const page = found.slice(0, pageSize);
    const last = page.at(-1);
    return {
      orders: page.map((order) => this.view(order)),
      nextCursor: found.length > pageSize && last ? encodePositionCursor(last.paidAt ?? null, last.id) : '',
    };
  }

  async get(reference: string): Promise<StaffOrderView> {
    return this.withRefunds(await staffOrderByReference(this.store, reference));
  }

  /** An order in full, with its refunds (listed with one order, not in a page of them). */
  async withRefunds(order: Order): Promise<StaffOrderView> {
    return this.view(order, await this.refunds.ofOrder(order.id));
  }

  private view(order: Order, refunds: Refund[] = []): StaffOrderView {
    return { order, details: this.reader.view(order, true), refunds };
  }
}

function pageSizeOf(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0 || limit > ORDER_PAGE_MAX)
    throw invalidArgument(`limit must be an integer from 1 to ${ORDER_PAGE_MAX}`);
  return limit === 0 ? DEFAULT_PAGE_SIZE : limit;
}

/**
 * A dispatch queue cursor: the order list's form, with the time of payment, null for an order paid before it was kept.
 */
function decodePaymentCursor(cursor: string): PaymentPosition {
  const [paidAt, id] = decodePositionCursor(cursor, (time) => time === null || Number.isSafeInteger(time));
  return paidAt === null ? { id } : { paidAt: paidAt as number, id };
}

/**
 * Any order by its reference or its number (`SRS-10234`), for a staff member: a reference out of bounds is a 400, an
 * unknown one a 404.
 */
export async function staffOrderByReference(store: CheckoutStore, reference: string): Promise<Order> {
  if (reference === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH)
    throw invalidArgument(`checkout_reference must be 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters`);
  const order = (await store.findByReference(reference)) ?? (await store.findByNumber(reference));
  if (!order) throw notFound(`No order with checkout_reference ${reference}`, 'order_not_found');
  return order;
}

function parseFilter(request: StaffOrderQuery): StaffOrderFilter {
  const query = request.query.trim();
  if (query.length > ORDER_REFERENCE_MAX_LENGTH + 200)
    throw invalidArgument('q is too long: give an order reference or an email address');
  const status = request.status;
  if (status !== '' && !(ORDER_STATUSES as readonly string[]).includes(status))
    throw invalidArgument(`status must be one of ${ORDER_STATUSES.join(', ')}`);
  const createdFrom = request.createdFrom === '' ? undefined : instantOption(request.createdFrom, 'from');
  const createdUntil = request.createdUntil === '' ? undefined : instantOption(request.createdUntil, 'until');
  const accountId = request.accountId.trim();
  if (accountId.length > ACCOUNT_ID_MAX_LENGTH)
    throw invalidArgument(`account_id must be at most ${ACCOUNT_ID_MAX_LENGTH} characters`);
  return {
    ...(query === '' ? {} : { query: query.includes('@') ? { email: query.toLowerCase() } : { reference: query } }),
    ...(status === '' ? {} : { status: status as OrderStatus }),
    createdFrom,
    createdUntil,
    ...(accountId === '' ? {} : { accountId }),
    ...(request.awaitingBuyerConfirmation ? { awaitingBuyerConfirmation: true } : {}),
  };
}
