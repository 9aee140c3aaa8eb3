/**
 * Reading orders back: one order by its checkout_reference, and a customer's orders a page at
 * a time. An account's order is shown only to that account; anyone else is told it does not
 * exist, so a reference reveals nothing about whose it is. A guest order shows its status to
 * whoever holds the reference, never its delivery details.
 */
import { invalidArgument, notFound } from '@storefront/errors';
import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import { orderSummary } from './checkout-service';
import type { AbuseGuard } from '../limits';
import type { CheckoutStore } from '../stores/checkout';
import { orderReadableBy, type Order, type OrderPosition } from './order';

const DEFAULT_PAGE_SIZE = 20;

export interface OrderReaderOptions {
  store: CheckoutStore;
  limits: AbuseGuard;
  now: () => number;
}

export class OrderReader {
  constructor(private readonly options: OrderReaderOptions) {}

  async getOrder(
    reference: string,
    clientAddress: string,
    accountId: string | undefined,
  ): Promise<checkout.GetOrderResponse> {
    if (reference === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH)
      throw invalidArgument(`checkout_reference must be 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters`);
    // Counted before the read, so a miss costs a guesser as much as a hit.
    await this.options.limits.countOrderLookup(clientAddress);
    const order = await this.options.store.findByReference(reference);
    if (!order || !orderReadableBy(order, accountId))
      throw notFound(`No order with checkout_reference ${reference}`, 'order_not_found');
    return { order: this.details(order, order.accountId !== undefined) };
  }

  async listOrders(accountId: string, limit: number, cursor: string): Promise<checkout.ListOrdersResponse> {
    if (!Number.isInteger(limit) || limit < 0 || limit > ORDER_PAGE_MAX)
      throw invalidArgument(`limit must be an integer from 1 to ${ORDER_PAGE_MAX}`);
    const pageSize = limit === 0 ? DEFAULT_PAGE_SIZE : limit;
    const after = cursor === '' ? undefined : decodeCursor(cursor);
    // One more than the page tells whether another page follows without a count.
    const found = await this.options.store.ordersOfAccount(accountId, pageSize + 1, after);
    const page = found.slice(0, pageSize);
    const last = page.at(-1);
    return {
      orders: page.map((order) => this.details(order, true)),
      nextCursor: found.length > pageSize && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : '',
    };
  }

  details(order: Order, forOwner: boolean): checkout.OrderDetails {
    return {
      summary: orderSummary(order),
      paymentLink: this.paymentLink(order),
      createdAt: new Date(order.createdAt).toISOString(),
      updatedAt: new Date(order.updatedAt ?? order.createdAt).toISOString(),
      delivery: forOwner ? order.delivery : undefined,
      dispatch: dispatchView(order, forOwner),
      refundedPence: order.refundedPence,
    };
  }

  /** The hosted page, only while paying it can still settle the order. */
  private paymentLink(order: Order): string {
    if (order.status !== 'pending_payment' || !order.providerCheckout) return '';
    if (order.reservedUntil === undefined || order.reservedUntil <= this.options.now()) return '';
    return order.providerCheckout.hostedCheckoutUrl ?? '';
  }
}

/** The dispatch; its tracking number only where the delivery details are shown (docs/decisions/0978). */
function dispatchView({ dispatch }: Order, forOwner: boolean): checkout.Dispatch | undefined {
  if (!dispatch) return undefined;
  return {
    carrier: dispatch.carrier,
    trackingNumber: forOwner ? dispatch.trackingNumber : '',
    dispatchedAt: new Date(dispatch.dispatchedAt).toISOString(),
    deliveredAt: dispatch.deliveredAt === undefined ? '' : new Date(dispatch.deliveredAt).toISOString(),
  };
}

/** The cursor is the last position of the page, base64url JSON: opaque to clients, checked here. */
export function encodeCursor(position: OrderPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): OrderPosition {
  // Unsigned, so a well-formed cursor a client made up is taken as a position; only its form is checked.
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
  const [createdAt, id] = parsed as unknown[];
  if (!Number.isSafeInteger(createdAt) || typeof id !== 'string' || id.length === 0 || id.length > 36) throw invalid;
  return { createdAt: createdAt as number, id };
}
