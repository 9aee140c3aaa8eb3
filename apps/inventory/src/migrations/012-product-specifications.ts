import type { Migration } from '@storefront/db';

/**
 * A product's specifications (decision 1318) as a JSON list of {label, value} in the order staff gave them; null for
 * none. Always read and written whole with the product, so a list is never half-changed.
 */
export const productSpecifications: Migration = {
  async up(db) {
    await db.schema.alterTable('products', (t) => {
      t.text('specifications').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('products', (t) => {
      t.dropColumn('specifications');
    });
  },
};
