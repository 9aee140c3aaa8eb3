import type { Migration } from '@storefront/db';

/**
 * The points each refund took back from an order's purchase award: what was due, what the
 * balance gave and what was forgiven because it had been spent. The primary key (the refund's
 * id) makes a reversal happen once; the ledger entry, when points were taken, is written with it.
 */
export const purchaseReversals: Migration = {
  async up(db) {
    await db.schema.createTable('purchase_reversals', (t) => {
      t.string('refund_id', 64).primary();
      t.string('order_id', 100).notNullable();
      t.string('user_id', 64).notNullable().references('user_id').inTable('accounts');
      t.integer('points_due').notNullable();
      t.integer('points_reversed').notNullable();
      t.integer('points_forgiven').notNullable();
      t.bigInteger('created_at').notNullable();
      t.index(['order_id']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('purchase_reversals');
  },
};
