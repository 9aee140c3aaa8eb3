import type { Migration } from '@storefront/db';

/**
 * Each order line's VAT rate when ordered, in basis points, copied from inventory's quote as the line is priced (the
 * receipt's VAT follows it, decision 1291). Lines ordered before it were all standard-rated.
 */
export const lineVatRates: Migration = {
  async up(db) {
    await db.schema.alterTable('order_lines', (t) => {
      t.integer('vat_rate_basis_points').notNullable().defaultTo(2000);
    });
  },
  async down(db) {
    await db.schema.alterTable('order_lines', (t) => {
      t.dropColumn('vat_rate_basis_points');
    });
  },
};
