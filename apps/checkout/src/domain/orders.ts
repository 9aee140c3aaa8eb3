/**
 * Reading orders back: one order by its checkout_reference (or its owner's by its number), and a customer's orders a
 * page at a time. An account's order is shown only to that account; anyone else is told it does not exist, so a
 * reference reveals nothing about whose it is. A guest order shows its status to whoever holds the reference, never its
 * delivery details.
 */
import { invalidArgument, notFound } from '@storefront/errors';
import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { AbuseGuard } from '../limits';
import {
  expectedDispatch,
  openUntil,
  orderReadableBy,
  type Order,
  type OrderDispatch,
  type OrderPosition,
} from './order';
import type { CheckoutStore } from './ports';
import type { Delivery } from './request';
import type { DispatchCalendar, DispatchPromise } from '@storefront/dispatch-calendar';

const DEFAULT_PAGE_SIZE = 20;

/**
 * An order as one reader may see it: its delivery details and tracking number only for its owner
 * (docs/decisions/0978), its payment link only while paying it can still settle the order. What a
 * reader may not see is left out here, so the order itself carries neither.
 */
export interface OrderView {
  order: Omit<Order, 'delivery' | 'dispatch'>;
  paymentLink?: string;
  delivery?: Delivery;
  dispatch?: Omit<OrderDispatch, 'trackingNumber' | 'dispatchedBy'> & { trackingNumber?: string };
  /** When the paid order is expected to leave and arrive. */
  expected?: DispatchPromise;
}

/** A page of orders, newest first; `nextCursor` is empty on the last page. */
export interface OrderPage<View> {
  orders: View[];
  nextCursor: string;
}

export interface OrderReaderOptions {
  store: CheckoutStore;
  limits: AbuseGuard;
  now: () => number;
  dispatchCalendar: DispatchCalendar;
}

export class OrderReader {
  constructor(private readonly options: OrderReaderOptions) {}

  async getOrder(reference: string, clientAddress: string, accountId: string | undefined): Promise<OrderView> {
    if (reference === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH)
      throw invalidArgument(`checkout_reference must be 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters`);
    // Counted before the read, so a miss costs a guesser as much as a hit.
    await this.options.limits.countOrderLookup(clientAddress);
    const order =
      (await this.options.store.findByReference(reference)) ?? (await this.ownOrderByNumber(reference, accountId));
    if (!order || !orderReadableBy(order, accountId))
      throw notFound(`No order with checkout_reference ${reference}`, 'order_not_found');
    return this.view(order, order.accountId !== undefined);
  }

  /**
   * An account's order by its number, for that account only: numbers are sequential, so anyone could guess one, and a
   * guest order stays readable only to whoever holds its unguessable reference (decision 1286).
   */
  private async ownOrderByNumber(text: string, accountId: string | undefined): Promise<Order | undefined> {
    if (accountId === undefined) return undefined;
    const order = await this.options.store.findByNumber(text);
    return order?.accountId === accountId ? order : undefined;
  }

  async listOrders(accountId: string, limit: number, cursor: string): Promise<OrderPage<OrderView>> {
    if (!Number.isInteger(limit) || limit < 0 || limit > ORDER_PAGE_MAX)
      throw invalidArgument(`limit must be an integer from 1 to ${ORDER_PAGE_MAX}`);
    const pageSize = limit === 0 ? DEFAULT_PAGE_SIZE : limit;
    const after = cursor === '' ? undefined : decodeCursor(cursor);
    // One more than the page tells whether another page follows without a count.
    const found = await this.options.store.ordersOfAccount(accountId, pageSize + 1, after);
    const page = found.slice(0, pageSize);
    const last = page.at(-1);
    return {
      orders: page.map((order) => this.view(order, true)),
      nextCursor: found.length > pageSize && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : '',
    };
  }

  view(order: Order, forOwner: boolean): OrderView {
    const { delivery, dispatch, ...rest } = order;
    return {
      order: rest,
      paymentLink: this.paymentLink(order),
      delivery: forOwner ? delivery : undefined,
      dispatch: dispatch && {
        carrier: dispatch.carrier,
        trackingNumber: forOwner ? dispatch.trackingNumber : undefined,
        dispatchedAt: dispatch.dispatchedAt,
        deliveredAt: dispatch.deliveredAt,
      },
      expected: expectedDispatch(order, this.options.dispatchCalendar),
    };
  }

  /** The hosted page, only while paying it can settle the order: its stock held, or while it may wait for stock. */
  private paymentLink(order: Order): string | undefined {
    if (order.status !== 'pending_payment' || !order.providerCheckout) return undefined;
    if (order.reservedUntil === undefined && order.stockWait !== 'waiting') return undefined;
    if (openUntil(order) <= this.options.now()) return undefined;
    return order.providerCheckout.hostedCheckoutUrl;
  }
}

/** The cursor is the last position of the page, `[time, id]` as base64url JSON: opaque to clients, checked here. */
export function encodePositionCursor(time: number | null, id: string): string {
  return Buffer.from(JSON.stringify([time, id])).toString('base64url');
}

/**
 * A cursor's `[time, id]`, the time checked by `isTime`. Unsigned, so a well-formed cursor a client made up is taken
 * as a position; only its form is checked.
 */
export function decodePositionCursor(cursor: string, isTime: (value: unknown) => boolean): [unknown, string] {
  const invalid = invalidArgument(
    "cursor is not valid; pass the previous page's nextCursor unchanged, or start again without it",
  );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid;
  const [time, id] = parsed as unknown[];
  if (!isTime(time) || typeof id !== 'string' || id.length === 0 || id.length > 36) throw invalid;
  return [time, id];
}

export const encodeCursor = (position: OrderPosition): string => encodePositionCursor(position.createdAt, position.id);

export function decodeCursor(cursor: string): OrderPosition {
  const [createdAt, id] = decodePositionCursor(cursor, Number.isSafeInteger);
  return { createdAt: createdAt as number, id };
}
