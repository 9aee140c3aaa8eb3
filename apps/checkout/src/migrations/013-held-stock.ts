import type { Migration } from '@storefront/db';

/**
 * Holds that yield and orders that wait for stock (decision 1082). An order saved without a stock
 * hold to wait for one keeps `stock_wait` (waiting, then served or unserved), so the units a paid
 * waiting order is owed count as held; an order closed for a reason its own view should show (its
 * hold released to another buyer, the stock it waited for never came) keeps that reason.
 */
export const heldStock: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      // null | waiting | served | unserved
      t.string('stock_wait', 10).nullable();
      // null | released_to_another_buyer | stock_never_came
      t.string('close_reason', 40).nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropColumn('close_reason');
      t.dropColumn('stock_wait');
    });
  },
};
