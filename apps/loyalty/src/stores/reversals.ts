/** Loyalty's record of the points each refund took back (purchase_reversals). */
import { toNumber } from '@storefront/db';
import type { Queryable } from './loyalty';

export interface PurchaseReversal {
  refundId: string;
  orderId: string;
  userId: string;
  pointsDue: number;
  pointsReversed: number;
  pointsForgiven: number;
  createdAt: number;
}

export async function findReversal(db: Queryable, refundId: string): Promise<PurchaseReversal | undefined> {
  const row = await db('purchase_reversals').where({ refund_id: refundId }).first();
  return (
    row && {
      refundId: String(row.refund_id),
      orderId: String(row.order_id),
      userId: String(row.user_id),
      pointsDue: toNumber(row.points_due),
      pointsReversed: toNumber(row.points_reversed),
      pointsForgiven: toNumber(row.points_forgiven),
      createdAt: toNumber(row.created_at),
    }
  );
}

/** The points earlier refunds of the order were due to take back, taken or forgiven. */
export async function pointsDueForOrder(db: Queryable, orderId: string): Promise<number> {
  const row = await db('purchase_reversals').where({ order_id: orderId }).sum({ due: 'points_due' }).first();
  return toNumber(row?.due);
}

export async function insertReversal(db: Queryable, reversal: PurchaseReversal): Promise<void> {
  await db('purchase_reversals').insert({
    refund_id: reversal.refundId,
    order_id: reversal.orderId,
    user_id: reversal.userId,
    points_due: reversal.pointsDue,
    points_reversed: reversal.pointsReversed,
    points_forgiven: reversal.pointsForgiven,
    created_at: reversal.createdAt,
  });
}
