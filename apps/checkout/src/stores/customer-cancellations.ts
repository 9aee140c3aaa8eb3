/** What a customer's own cancellation reads and writes of checkout's orders (decision 1321). */
import type { Knex } from '@storefront/db';
import type { CustomerCancellationStore as CustomerCancellationStorePort } from '../domain/customer-cancellation';
import { DISPATCHABLE_STATUSES, type Order, type OrderStatus } from '../domain/order';
import type { RefundLine } from '../domain/refund';
import type { CheckoutStore } from './checkout';
import type { RefundStore } from './refunds';

export class CustomerCancellationStore implements CustomerCancellationStorePort {
  constructor(
    private readonly db: Knex,
    private readonly orders: CheckoutStore,
    private readonly refunds: RefundStore,
  ) {}

  findById(id: string): Promise<Order | undefined> {
    return this.orders.findById(id);
  }

  async markCancelledByCustomer(orderId: string, now: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId })
      .whereIn('status', DISPATCHABLE_STATUSES as OrderStatus[])
      .whereNotNull('closed_at')
      .whereNull('dispatched_at')
      .whereNull('buyer_lapsed_at')
      .whereNull('customer_cancelled_at')
      .update({ customer_cancelled_at: now, close_reason: 'cancelled_by_customer', updated_at: now });
    return updated === 1;
  }

  unreturnedLines(order: Order): Promise<RefundLine[]> {
    return this.refunds.unreturnedLines(order);
  }
}
