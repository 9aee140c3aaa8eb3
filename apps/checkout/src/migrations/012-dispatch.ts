import type { Migration } from '@storefront/db';

/**
 * What happens to an order after it is paid, or instead of being paid: its dispatch (carrier,
 * tracking number, when and by whom), its delivery, and a staff member's cancel of an unpaid
 * order. Kept in columns of their own, so a later status never hides an earlier fact.
 */
export const dispatch: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.string('dispatch_carrier', 60).nullable();
      t.string('dispatch_tracking_number', 60).nullable();
      // Epoch milliseconds.
      t.bigInteger('dispatched_at').nullable();
      // The staff member's email (or the ops actor) who dispatched it.
      t.string('dispatched_by', 254).nullable();
      t.bigInteger('delivered_at').nullable();
      t.bigInteger('cancelled_at').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      for (const column of [
        'dispatch_carrier',
        'dispatch_tracking_number',
        'dispatched_at',
        'dispatched_by',
        'delivered_at',
        'cancelled_at',
      ])
        t.dropColumn(column);
    });
  },
};
