/** What the referral settlement reads of orders, and the accounts it has finished with (decision 1180). */
import { toNumber, type Knex } from '@storefront/db';
import type { DecidableOrder, ReferralCheckStore as ReferralCheckStorePort } from '../domain/referral-settlement';

export class ReferralCheckStore implements ReferralCheckStorePort {
  constructor(private readonly db: Knex) {}

  /**
   * Paid orders of accounts not yet finished with that can be decided now: refunded in full, or delivered (or
   * dispatched, when delivery was never recorded) before the given instants. Oldest payment first.
   */
  async decidableOrders(deliveredBefore: number, dispatchedBefore: number, limit: number): Promise<DecidableOrder[]> {
    const { db } = this;
    const rows = await db('orders as o')
      .leftJoin('referral_checks as c', 'c.account_id', 'o.account_id')
      .whereNotNull('o.account_id')
      .whereNotNull('o.paid_at')
      .whereNull('c.account_id')
      .where((decidable) =>
        decidable
          .where('o.refunded_pence', '>=', db.ref('o.total_pence'))
          .orWhere('o.delivered_at', '<', deliveredBefore)
          .orWhere((dispatched) =>
            dispatched.whereNull('o.delivered_at').andWhere('o.dispatched_at', '<', dispatchedBefore),
          ),
      )
      .orderBy('o.paid_at')
      .limit(limit)
      .select('o.id', 'o.account_id', 'o.total_pence', 'o.refunded_pence', 'o.delivery_line1', 'o.delivery_postcode');
    return rows.map((row) => ({
      orderId: String(row.id),
      accountId: String(row.account_id),
      fullyRefunded: toNumber(row.refunded_pence) >= toNumber(row.total_pence),
      address: { line1: String(row.delivery_line1), postcode: String(row.delivery_postcode) },
    }));
  }

  /** The id of the account's first paid order. */
  async firstPaidOrderId(accountId: string): Promise<string | undefined> {
    const row = await this.db('orders')
      .where({ account_id: accountId })
      .whereNotNull('paid_at')
      .orderBy([{ column: 'paid_at' }, { column: 'id' }])
      .first('id');
    return row ? String(row.id) : undefined;
  }

  /** Where the account's paid orders were sent. */
  async deliveryAddressesOf(accountId: string): Promise<Array<{ line1: string; postcode: string }>> {
    const rows = await this.db('orders')
      .where({ account_id: accountId })
      .whereNotNull('paid_at')
      .distinct('delivery_line1', 'delivery_postcode');
    return rows.map((row) => ({ line1: String(row.delivery_line1), postcode: String(row.delivery_postcode) }));
  }

  /** Records the account as finished with; a second replica's record of the same account changes nothing. */
  async finish(accountId: string, outcome: 'not_referred' | 'decided', orderId: string | undefined, now: number) {
    await this.db('referral_checks')
      .insert({ account_id: accountId, outcome, order_id: orderId ?? null, checked_at: now })
      .onConflict('account_id')
      .ignore();
  }
}
