/**
 * Points taken back when an order is refunded. Each refund reverses, once, what its share of
 * the order's goods earned, counted over all of the order's refunds so rounding never leaves a
 * fully refunded order with points. The balance never goes below zero: points already spent
 * are forgiven and recorded as such (docs/decisions/0975).
 */
import { randomUUID } from 'node:crypto';
import type { LoyaltyStore, Queryable } from '../stores/loyalty';
import { findReversal, insertReversal, pointsDueForOrder } from '../stores/reversals';
import { ledgerKey, pointsToReverse } from './rules';

/** Refund ids are checkout's UUIDs; the column allows this much. */
export const REFUND_ID_MAX_LENGTH = 64;

export interface ReversalOutcome {
  pointsReversed: number;
  pointsForgiven: number;
  newlyReversed: boolean;
}

export interface ReversalRequest {
  refundId: string;
  orderId: string;
  userId: string;
  /** What the order's refunds have given back in all, this one included, in pence. */
  refundedPence: number;
  /** The goods total after discount the order's points were awarded for, in pence. */
  goodsPence: number;
  /** How the entry names the order (its number); its id when absent. */
  orderName?: string;
}

export async function reversePurchase(
  store: LoyaltyStore,
  request: ReversalRequest,
  now: number,
): Promise<ReversalOutcome> {
  const { refundId, orderId, userId } = request;
  // An account that never had the order's points has nothing to give back; nothing is recorded,
  // so a later call (after the award) still reverses.
  if (!(await store.hasAccount(userId))) return { pointsReversed: 0, pointsForgiven: 0, newlyReversed: false };
  return store.withAccountLock(userId, async (trx) => {
    const earlier = await findReversal(trx, refundId);
    if (earlier)
      return { pointsReversed: earlier.pointsReversed, pointsForgiven: earlier.pointsForgiven, newlyReversed: false };
    const award = await store.findEntry(trx, ledgerKey.order(orderId));
    if (!award || award.userId !== userId) return { pointsReversed: 0, pointsForgiven: 0, newlyReversed: false };
    const due = Math.max(
      0,
      pointsToReverse(award.points, request.refundedPence, request.goodsPence) -
        (await pointsDueForOrder(trx, orderId)),
    );
    const { taken, forgiven } = await takeBack(
      store,
      trx,
      {
        userId,
        key: ledgerKey.reversal(refundId),
        description: `Refund of order ${request.orderName ?? orderId}`,
        orderId,
      },
      due,
      now,
    );
    await insertReversal(trx, {
      refundId,
      orderId,
      userId,
      pointsDue: due,
      pointsReversed: taken,
      pointsForgiven: forgiven,
      createdAt: now,
    });
    return { pointsReversed: taken, pointsForgiven: forgiven, newlyReversed: true };
  });
}

/**
 * Takes `due` points back from the account as one `reversal` entry under `key`, at most what the
 * balance holds: the rest was already spent and is forgiven, which the entry's description says.
 * Runs inside a change that holds the account's lock; nothing is written when nothing is taken.
 */
export async function takeBack(
  store: LoyaltyStore,
  trx: Queryable,
  entry: { userId: string; key: string; description: string; orderId?: string },
  due: number,
  now: number,
): Promise<{ taken: number; forgiven: number }> {
  const taken = Math.min(due, (await store.balance(trx, entry.userId)).points);
  if (taken > 0) {
    const forgivenNote = due > taken ? ` (${due - taken} already spent, forgiven)` : '';
    await store.appendEntry(trx, {
      ...entry,
      id: randomUUID(),
      type: 'reversal',
      points: -taken,
      description: `${entry.description}${forgivenNote}`,
      createdAt: now,
    });
  }
  return { taken, forgiven: due - taken };
}
