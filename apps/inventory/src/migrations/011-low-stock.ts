import type { Migration } from '@storefront/db';

/**
 * A low-stock threshold per counted size (decision 1316): the owners are mailed when an order takes the size's
 * available units from at least `threshold` to below it. `crossings` counts those mails; the next one's outbox key is
 * made from it, so a crossing is mailed once however many replicas see it.
 */
export const lowStock: Migration = {
  async up(db) {
    await db.schema.createTable('low_stock_thresholds', (t) => {
      t.string('sku', 100).primary().references('sku').inTable('stock').onDelete('CASCADE');
      t.integer('threshold').notNullable();
      t.integer('crossings').notNullable().defaultTo(0);
      // Epoch milliseconds.
      t.bigInteger('updated_at').notNullable();
    });
  },
  async down(db) {
    await db.schema.dropTable('low_stock_thresholds');
  },
};
