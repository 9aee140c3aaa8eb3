import type { Migration } from '@storefront/db';

/**
 * When the customer cancelled a paid order before it left (decision 1321): taken before its refund, and required
 * null by a dispatch, so a cancellation and a dispatch crossing each other cannot both happen.
 */
export const customerCancellation: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      // Epoch milliseconds.
      t.bigInteger('customer_cancelled_at').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropColumn('customer_cancelled_at');
    });
  },
};
