/**
 * The customer's data rights, erasure, in checkout (decision 1300): the delivery details of the account's orders are
 * replaced by fixed words and the mails sent to their addresses forget them; totals, lines, VAT, refunds and the
 * delivery country (the VAT place of supply) stay for the books. Refused while an order of the account is unpaid or
 * one of its refunds is pending: either would still need the address. Guest orders' delivery details go the same way
 * once their retention period is over (decision 1301).
 */
import { conflict } from '@storefront/errors';
import type { Knex } from '@storefront/db';
import { forgetRecipients } from '@storefront/outbox';

/** What an erased order's delivery says. */
export const ERASED_DELIVERY = {
  delivery_name: 'Erased',
  delivery_email: 'erased@erased.invalid',
  delivery_phone: null,
  delivery_line1: 'Erased',
  delivery_line2: null,
  delivery_city: 'Erased',
  delivery_postcode: 'ERASED',
} as const;

export class CustomerErasureStore {
  constructor(private readonly db: Knex) {}

  /**
   * Erases the account's orders once; a repeat finds nothing left to change.
   * Answers how many orders it holds for the account.
   */
  async erase(accountId: string, checkOnly: boolean, now: number): Promise<number> {
    return this.db.transaction(async (trx) => {
      const orders = trx('orders').where({ account_id: accountId });
      const unpaid = await orders.clone().where({ status: 'pending_payment' }).first('reference');
      if (unpaid)
        throw conflict(
          'erasure_refused',
          `Order ${unpaid.reference as string} is not paid yet; pay it or let it expire before closing the account`,
        );
      const refunding = await trx('refunds')
        .whereIn('order_id', orders.clone().select('id'))
        .where({ state: 'pending' })
        .first('order_reference');
      if (refunding)
        throw conflict(
          'erasure_refused',
          `A refund of order ${refunding.order_reference as string} is still pending; ` +
            'the account can be closed once it is settled',
        );
      if (checkOnly) return 0;
      const addresses = (await orders
        .clone()
        .whereNot({ delivery_email: ERASED_DELIVERY.delivery_email })
        .distinct()
        .pluck('delivery_email')) as string[];
      await forgetRecipients(trx, addresses);
      return Number(await orders.clone().update({ ...ERASED_DELIVERY, updated_at: now }));
    });
  }

  /**
   * Retention: erases the delivery details of up to `limit` guest orders placed before `placedBefore` (and no longer
   * awaiting payment), and forgets the mails to their addresses; answers how many. Replicas running it at once write
   * the same words twice at worst.
   */
  async eraseGuestDeliveries(placedBefore: number, now: number, limit: number): Promise<number> {
    return this.db.transaction(async (trx) => {
      const due = (await trx('orders')
        .whereNull('account_id')
        .where('created_at', '<', placedBefore)
        .whereNot({ status: 'pending_payment' })
        .whereNot({ delivery_email: ERASED_DELIVERY.delivery_email })
        .limit(limit)
        .select('id', 'delivery_email')) as Array<{ id: string; delivery_email: string }>;
      if (due.length === 0) return 0;
      await forgetRecipients(trx, [...new Set(due.map((order) => order.delivery_email))]);
      await trx('orders')
        .whereIn(
          'id',
          due.map((order) => order.id),
        )
        .update({ ...ERASED_DELIVERY, updated_at: now });
      return due.length;
    });
  }
}
