/**
 * The customer's right to cancel before dispatch (decision 1321): whoever may read the order (its account, or for a
 * guest order whoever holds its reference, the same rule as the order page) cancels a paid order that has not left,
 * and the whole payment, delivery included, is refunded with every unit returned to stock. The mark is conditional and
 * a dispatch requires it absent, so a cancellation and a dispatch crossing each other cannot both happen; the refund
 * is keyed by the order, so pressing twice, or on two replicas, refunds once.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, type AppError } from '@storefront/errors';
import { DISPATCHABLE_STATUSES, type Order } from './order';
import type { OrderReader, OrderView } from './orders';
import type { RefundLine } from './refund';
import type { FullRefund } from './refunds';

/** Who refunds a customer's cancellation, in the refund and the staff audit log: the shop itself, at their request. */
export const CUSTOMER_CANCELLATION_REFUNDER: StaffIdentity = {
  id: 'checkout:customer-cancellation',
  role: 'owner',
  email: 'checkout (cancelled by the customer)',
  clientAddress: 'checkout',
};

/** The refund of a customer's cancellation: one per order. */
export const CUSTOMER_CANCELLATION_REFUND_KEY_PREFIX = 'customer-cancelled:';

export interface CustomerCancellationStore {
  findById(id: string): Promise<Order | undefined>;
  /** Marks a paid, settled, undispatched order cancelled by its customer; false when it no longer is one. */
  markCancelledByCustomer(orderId: string, now: number): Promise<boolean>;
  /** The units of the order's lines that its refunds (other than failed ones) have not returned. */
  unreturnedLines(order: Order): Promise<RefundLine[]>;
}

export class CustomerCancellations {
  constructor(
    private readonly options: {
      store: CustomerCancellationStore;
      orders: OrderReader;
      refundInFull: (refund: FullRefund) => Promise<void>;
      now: () => number;
    },
  ) {}

  async cancel(reference: string, clientAddress: string, accountId: string | undefined): Promise<OrderView> {
    const { store, orders, now } = this.options;
    // The order page's rule of who reads the order, on its limit.
    const { order: readable } = await orders.getOrder(reference, clientAddress, accountId);
    let order = (await store.findById(readable.id))!;
    if (order.customerCancelledAt === undefined) {
      const refused = cancelConflictOf(order);
      if (refused) throw refused;
      const marked = await store.markCancelledByCustomer(order.id, now());
      order = (await store.findById(order.id))!;
      // Dispatched, or closed otherwise, since it was read: say what it is now.
      if (!marked && order.customerCancelledAt === undefined) throw cancelConflictOf(order) ?? notCancellable(order);
    }
    await this.options.refundInFull({
      order,
      key: `${CUSTOMER_CANCELLATION_REFUND_KEY_PREFIX}${order.id}`,
      reason: 'The customer cancelled the order before it was dispatched',
      lines: await store.unreturnedLines(order),
    });
    return orders.view((await store.findById(order.id))!, order.accountId !== undefined);
  }
}

/** Why the customer cannot cancel this order now, or undefined when they can. */
function cancelConflictOf(order: Order): AppError | undefined {
  if (order.dispatch)
    return conflict(
      'order_already_dispatched',
      `Order ${order.reference} has been dispatched; return it within 14 days of delivery instead (see /returns)`,
    );
  if (order.status === 'pending_payment')
    return conflict(
      'order_not_paid',
      `Order ${order.reference} is not paid; leave it unpaid and its stock is released when its hold ends`,
    );
  if (order.buyerLapsedAt !== undefined || !DISPATCHABLE_STATUSES.includes(order.status)) return notCancellable(order);
  if (order.closedAt === undefined)
    return conflict(
      'order_settling',
      `Order ${order.reference} is paid but its stock and points are still being settled; try again in a minute`,
    );
  return undefined;
}

const notCancellable = (order: Order) =>
  conflict('order_not_cancellable', `Order ${order.reference} is ${order.status}; it can no longer be cancelled`);
