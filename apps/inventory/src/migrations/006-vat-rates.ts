import type { Migration } from '@storefront/db';

/** Each product's VAT rate in basis points (2000 is the standard 20 %); every product so far is standard-rated. */
export const vatRates: Migration = {
  async up(db) {
    await db.schema.alterTable('products', (t) => {
      t.integer('vat_rate_basis_points').notNullable().defaultTo(2000);
    });
  },
  async down(db) {
    await db.schema.alterTable('products', (t) => {
      t.dropColumn('vat_rate_basis_points');
    });
  },
};
