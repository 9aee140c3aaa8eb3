import type { Migration } from '@storefront/db';

/**
 * When the buyer confirmed the research-use and age statements, and which version of their wording (decision 1220);
 * null while the order is held for it. Orders saved before this column had no such statements: they count as
 * confirmed at their creation under the version `predates-buyer-confirmation`, so none of them is held or cancelled.
 * `buyer_lapsed_at` marks a paid order cancelled for never confirming, taken before its refund so a confirmation
 * cannot cross it. The index serves the pass that finds paid orders left unconfirmed.
 */
export const buyerConfirmation: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      // Epoch milliseconds.
      t.bigInteger('buyer_confirmed_at').nullable();
      t.string('buyer_confirmation_version', 64).nullable();
      t.bigInteger('buyer_lapsed_at').nullable();
      t.index(['buyer_confirmed_at', 'paid_at'], 'orders_by_buyer_confirmation');
    });
    await db('orders').update({
      buyer_confirmed_at: db.ref('created_at'),
      buyer_confirmation_version: 'predates-buyer-confirmation',
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['buyer_confirmed_at', 'paid_at'], 'orders_by_buyer_confirmation');
      t.dropColumn('buyer_lapsed_at');
      t.dropColumn('buyer_confirmation_version');
      t.dropColumn('buyer_confirmed_at');
    });
  },
};
