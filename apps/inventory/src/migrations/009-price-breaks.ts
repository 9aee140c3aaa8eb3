import type { Migration } from '@storefront/db';

/**
 * Each size's quantity price breaks as a JSON list of {minQuantity, percentOff}, `[]` for none
 * (decision 1303): at most five, always read and written whole with the size's price.
 */
export const priceBreaks: Migration = {
  async up(db) {
    await db.schema.alterTable('product_sizes', (t) => {
      t.string('price_breaks', 255).notNullable().defaultTo('[]');
    });
  },
  async down(db) {
    await db.schema.alterTable('product_sizes', (t) => {
      t.dropColumn('price_breaks');
    });
  },
};
