import type { Migration } from '@storefront/db';

/** One row per stock return (a refund's id): its primary key is what makes ReturnStock idempotent. */
export const stockReturns: Migration = {
  async up(db) {
    await db.schema.createTable('stock_returns', (t) => {
      t.string('id', 64).primary();
      t.string('order_reference', 128).notNullable();
      // The lines as asked, JSON [{sku, quantity}]; only stock-limited SKUs were counted back.
      t.text('lines_json').notNullable();
      t.bigInteger('created_at').notNullable();
      t.index(['order_reference']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('stock_returns');
  },
};
