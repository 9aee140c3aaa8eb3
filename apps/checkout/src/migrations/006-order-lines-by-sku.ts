import type { Migration } from '@storefront/db';

/**
 * The units open orders hold of a SKU, summed across every holder while a new order for it is
 * decided, are found by SKU rather than by scanning every order line.
 */
export const orderLinesBySku: Migration = {
  async up(db) {
    await db.schema.alterTable('order_lines', (t) => {
      t.index(['sku', 'order_id'], 'order_lines_sku');
    });
  },
  async down(db) {
    await db.schema.alterTable('order_lines', (t) => {
      t.dropIndex(['sku', 'order_id'], 'order_lines_sku');
    });
  },
};
