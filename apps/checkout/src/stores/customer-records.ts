/**
 * A customer's data rights, access: what checkout holds about the account besides its orders (decision 1240) — the
 * mails queued to the delivery addresses of its orders, the staff actions on them, the receipts issued for them and
 * their returns.
 */
import { toNumber, type Knex } from '@storefront/db';
import type { OrderNumbers } from '../domain/order-number';
import { mailsTo, type SentMailRecord } from '@storefront/outbox';
import { allStaffActionsOn, type StaffAction } from '@storefront/staff-audit';
import { ERASED_DELIVERY } from './customer-erasure';

export interface OrderRecords {
  /** Oldest first. */
  mails: SentMailRecord[];
  /** Newest first. */
  staffActions: StaffAction[];
  /** By receipt number. */
  receipts: IssuedReceipt[];
}

export interface IssuedReceipt {
  receiptNumber: number;
  orderReference: string;
  orderNumber: string;
  /** Absent for orders paid before payment times were recorded. */
  issuedAt?: number;
  totalPence: number;
}

export async function orderRecordsOf(db: Knex, accountId: string, numbers: OrderNumbers): Promise<OrderRecords> {
  const orders = (await db('orders')
    .where({ account_id: accountId })
    .select('reference', 'delivery_email', 'order_number', 'receipt_number', 'paid_at', 'total_pence')) as Array<{
    reference: string;
    delivery_email: string;
    order_number: unknown;
    receipt_number: unknown;
    paid_at: unknown;
    total_pence: unknown;
  }>;
  const addresses = [...new Set(orders.map((order) => order.delivery_email))].filter(
    (address) => address !== ERASED_DELIVERY.delivery_email,
  );
  const [mails, actions] = await Promise.all([
    mailsTo(db, addresses),
    Promise.all(orders.map((order) => allStaffActionsOn(db, order.reference))),
  ]);
  const receipts = orders
    .filter((order) => order.receipt_number != null)
    .map((order) => ({
      receiptNumber: toNumber(order.receipt_number),
      orderReference: order.reference,
      orderNumber: numbers.format(toNumber(order.order_number)),
      issuedAt: order.paid_at == null ? undefined : toNumber(order.paid_at),
      totalPence: toNumber(order.total_pence),
    }))
    .sort((a, b) => a.receiptNumber - b.receiptNumber);
  return { mails, staffActions: actions.flat().sort((a, b) => b.at - a.at || b.id - a.id), receipts };
}
