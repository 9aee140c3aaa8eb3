/**
 * A customer's data rights, access: what checkout holds about the account besides its orders (decision 1240) — the
 * mails queued to the delivery addresses of its orders, and the staff actions on them.
 */
import type { Knex } from '@storefront/db';
import { mailsTo, type SentMailRecord } from '@storefront/outbox';
import { allStaffActionsOn, type StaffAction } from '@storefront/staff-audit';
import { ERASED_DELIVERY } from './customer-erasure';

export interface OrderRecords {
  /** Oldest first. */
  mails: SentMailRecord[];
  /** Newest first. */
  staffActions: StaffAction[];
}

export async function orderRecordsOf(db: Knex, accountId: string): Promise<OrderRecords> {
  const orders = (await db('orders').where({ account_id: accountId }).select('reference', 'delivery_email')) as Array<{
    reference: string;
    delivery_email: string;
  }>;
  const addresses = [...new Set(orders.map((order) => order.delivery_email))].filter(
    (address) => address !== ERASED_DELIVERY.delivery_email,
  );
  const [mails, actions] = await Promise.all([
    mailsTo(db, addresses),
    Promise.all(orders.map((order) => allStaffActionsOn(db, order.reference))),
  ]);
  return { mails, staffActions: actions.flat().sort((a, b) => b.at - a.at || b.id - a.id) };
}
