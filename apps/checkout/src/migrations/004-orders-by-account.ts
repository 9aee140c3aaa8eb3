import type { Migration } from '@storefront/db';

/** A customer's order history reads an account's orders newest first. */
export const ordersByAccount: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.index(['account_id', 'created_at'], 'orders_account_created_index');
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['account_id', 'created_at'], 'orders_account_created_index');
    });
  },
};
