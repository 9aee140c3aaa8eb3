import type { Migration } from '@storefront/db';

/**
 * Inventory holds addresses too (back-in-stock alerts), so an erasure waits for it as for checkout and loyalty
 * (decision 1343). An erasure recorded before waits for it as well, while its address is still kept.
 */
export const inventoryErasureStep: Migration = {
  async up(db) {
    await db.schema.alterTable('account_erasures', (t) => {
      t.bigInteger('inventory_erased_at').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('account_erasures', (t) => {
      t.dropColumn('inventory_erased_at');
    });
  },
};
