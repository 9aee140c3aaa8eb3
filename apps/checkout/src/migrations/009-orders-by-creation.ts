import type { Migration } from '@storefront/db';

/**
 * The console lists every order newest first, a page at a time, optionally by status (keyset
 * paging on (created_at, id) needs these indexes), and shows when each was paid.
 */
export const ordersByCreation: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      // Epoch milliseconds; null until paid, and for orders paid before this column existed.
      t.bigInteger('paid_at').nullable();
      t.index(['created_at', 'id'], 'orders_created_index');
      t.index(['status', 'created_at'], 'orders_status_created_index');
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['created_at', 'id'], 'orders_created_index');
      t.dropIndex(['status', 'created_at'], 'orders_status_created_index');
      t.dropColumn('paid_at');
    });
  },
};
