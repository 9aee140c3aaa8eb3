import type { Migration } from '@storefront/db';

/**
 * A promo code's conditions (decision 1324): the goods an order must reach, whether only an account's first order may
 * use it, and how many of an account's orders may. Absent (null, false) for every code written before.
 */
export const promoConditions: Migration = {
  async up(db) {
    await db.schema.alterTable('promo_codes', (t) => {
      t.bigInteger('min_goods_pence').nullable();
      t.boolean('first_order_only').notNullable().defaultTo(false);
      t.integer('uses_per_account').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('promo_codes', (t) => {
      t.dropColumn('min_goods_pence');
      t.dropColumn('first_order_only');
      t.dropColumn('uses_per_account');
    });
  },
};
