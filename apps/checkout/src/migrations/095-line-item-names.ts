import type { Migration } from '@storefront/db';

/**
 * Each order line's product name and size when ordered ("BPC-157 5mg"), copied from inventory's quote as the line is
 * priced, so the order's mails name what was bought (decision 1297). Lines ordered before it have none: their mails
 * name the SKU.
 */
export const lineItemNames: Migration = {
  async up(db) {
    await db.schema.alterTable('order_lines', (t) => {
      t.string('item_name', 250).nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('order_lines', (t) => {
      t.dropColumn('item_name');
    });
  },
};
