/** What the buyer statements read and write of checkout's orders and refunds (decisions 1220–1222). */
import type { Knex } from '@storefront/db';
import type { BuyerConfirmationStore as BuyerConfirmationStorePort } from '../domain/buyer-confirmation';
import { DISPATCHABLE_STATUSES, type BuyerConfirmation, type Order, type OrderStatus } from '../domain/order';
import type { RefundLine } from '../domain/refund';
import type { CheckoutStore } from './checkout';
import type { RefundStore } from './refunds';

export class BuyerConfirmationStore implements BuyerConfirmationStorePort {
  constructor(
    private readonly db: Knex,
    private readonly orders: CheckoutStore,
    private readonly refunds: RefundStore,
  ) {}

  findByReference(reference: string): Promise<Order | undefined> {
    return this.orders.findByReference(reference);
  }

  findById(id: string): Promise<Order | undefined> {
    return this.orders.findById(id);
  }

  async confirmBuyer(orderId: string, { at, version }: BuyerConfirmation): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId })
      .whereNull('buyer_confirmed_at')
      .whereNull('buyer_lapsed_at')
      .update({ buyer_confirmed_at: at, buyer_confirmation_version: version, updated_at: at });
    return updated === 1;
  }

  async unconfirmedPaidBefore(paidBefore: number, refundKeyPrefix: string, limit: number): Promise<Order[]> {
    // Marked cancelled for it or not yet: a pass cut short between the mark and the refund is finished by the next.
    const rows = await this.db('orders as o')
      .whereNull('o.buyer_confirmed_at')
      .whereIn('o.status', DISPATCHABLE_STATUSES as OrderStatus[])
      .where('o.paid_at', '<', paidBefore)
      .whereNull('o.dispatched_at')
      // A customer's own cancellation refunds it under its own key.
      .whereNull('o.customer_cancelled_at')
      .leftJoin('refunds as r', (on) =>
        on.on('r.order_id', '=', 'o.id').andOnVal('r.idempotency_key', 'like', `${refundKeyPrefix}%`),
      )
      .whereNull('r.id')
      .orderBy('o.paid_at')
      .limit(limit)
      .select('o.id');
    const found = await Promise.all(rows.map((row) => this.orders.findById(String(row.id))));
    return found.filter((order): order is Order => order !== undefined);
  }

  async markLapsed(orderId: string, now: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId })
      .whereNull('buyer_confirmed_at')
      .whereNull('buyer_lapsed_at')
      .update({ buyer_lapsed_at: now, close_reason: 'buyer_never_confirmed', updated_at: now });
    return updated === 1;
  }

  unreturnedLines(order: Order): Promise<RefundLine[]> {
    return this.refunds.unreturnedLines(order);
  }
}
