/**
 * The writes of a staff member's dispatch, delivery and cancel, and of a dispatch's shipment. Each is one conditional
 * update of the order, made in a transaction with its staff audit row (for a recorded shipment, its notice mail), so
 * the change, its record and its mail exist together or not at all; false when the order was no longer in the state
 * the update expects (another request changed it first).
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { Knex } from '@storefront/db';
import { enqueueMail, OUTBOX_TABLE, type Mail } from '@storefront/outbox';
import { recordStaffAction } from '@storefront/staff-audit';
import { DISPATCHABLE_STATUSES, type DispatchDetails, type Order } from '../domain/order';
import type { FulfilmentStore as FulfilmentStorePort } from '../domain/ports';
import { recallNoticeKey, type RecallNoticeStore } from '../domain/recall-notices';
import { DUE_NOW } from './checkout';

export class FulfilmentStore implements FulfilmentStorePort, RecallNoticeStore {
  constructor(private readonly db: Knex) {}

  /** Only an order whose payment's steps are done (closed_at): its stock is committed, its points awarded. */
  dispatch(order: Order, details: DispatchDetails, staff: StaffIdentity, now: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('orders')
        .where({ id: order.id })
        .whereIn('status', DISPATCHABLE_STATUSES)
        .whereNotNull('closed_at')
        .whereNotNull('buyer_confirmed_at')
        .whereNull('customer_cancelled_at')
        .whereNull('dispatched_at')
        .update({
          status: 'dispatched',
          dispatch_carrier: details.carrier,
          dispatch_tracking_number: details.trackingNumber,
          dispatched_at: now,
          dispatched_by: staff.email,
          updated_at: now,
        });
      if (updated !== 1) return false;
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'order_dispatched',
          subject: order.reference,
          before: { status: order.status },
          after: { status: 'dispatched', ...details },
        },
        now,
      );
      return true;
    });
  }

  recordShipment(order: Order, mail: Mail, now: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('orders')
        .where({ id: order.id })
        .whereNotNull('dispatched_at')
        .whereNull('shipment_recorded_at')
        .update({ shipment_recorded_at: now });
      if (updated !== 1) return false;
      await enqueueMail(trx, mail, now);
      return true;
    });
  }

  async unrecordedShipments(limit: number): Promise<string[]> {
    const rows = await this.db('orders')
      .whereNull('shipment_recorded_at')
      .whereNotNull('dispatched_at')
      .orderBy('dispatched_at')
      .limit(limit)
      .select<Array<{ id: string }>>('id');
    return rows.map((row) => row.id);
  }

  /** Reads which notices exist inside the transaction, so the audit row names only the orders mailed now. */
  sendRecallNotices(
    batch: string,
    orders: Order[],
    mailOf: (order: Order) => Mail,
    staff: StaffIdentity,
    now: number,
  ): Promise<{ queued: string[]; alreadySent: string[] }> {
    return this.db.transaction(async (trx) => {
      const keys = new Map(orders.map((order) => [recallNoticeKey(batch, order.reference), order]));
      const sent = new Set(
        (
          await trx(OUTBOX_TABLE)
            .whereIn('mail_key', [...keys.keys()])
            .select<Array<{ mail_key: string }>>('mail_key')
        ).map((row) => row.mail_key),
      );
      const queued: string[] = [];
      const alreadySent: string[] = [];
      for (const [key, order] of keys) {
        if (sent.has(key)) {
          alreadySent.push(order.reference);
          continue;
        }
        await enqueueMail(trx, mailOf(order), now);
        queued.push(order.reference);
      }
      if (queued.length > 0)
        await recordStaffAction(
          trx,
          staff,
          { action: 'batch_recall_notices_sent', subject: batch, after: { orders: queued } },
          now,
        );
      return { queued, alreadySent };
    });
  }

  markDelivered(order: Order, staff: StaffIdentity, now: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('orders')
        .where({ id: order.id, status: 'dispatched' })
        .whereNull('delivered_at')
        .update({ status: 'delivered', delivered_at: now, updated_at: now });
      if (updated !== 1) return false;
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'order_delivered',
          subject: order.reference,
          before: { status: order.status },
          after: { status: 'delivered' },
        },
        now,
      );
      return true;
    });
  }

  /**
   * Cancels the unpaid order as it was read: still pending, with the same provider checkout (none,
   * or the one deactivated) and no create-checkout attempt at work on it. It is made due a
   * reconciler read at once, so its stock and code are given back even if this process stops
   * before it does so itself.
   */
  cancel(order: Order, staff: StaffIdentity, now: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('orders')
        .where({ id: order.id, status: 'pending_payment' })
        .andWhere((q) =>
          order.providerCheckoutId === undefined
            ? q.whereNull('provider_checkout_id')
            : q.where('provider_checkout_id', order.providerCheckoutId),
        )
        .andWhere((q) => q.whereNull('claim_token').orWhere('claim_expires_at', '<=', now))
        .update({ status: 'cancelled', cancelled_at: now, next_check_at: DUE_NOW, updated_at: now });
      if (updated !== 1) return false;
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'order_cancelled',
          subject: order.reference,
          before: { status: order.status },
          after: { status: 'cancelled' },
        },
        now,
      );
      return true;
    });
  }
}
