import type { Migration } from '@storefront/db';

/**
 * An open order's hold on a reward code: which order, and until when (epoch ms). A hold lapses
 * on its own at `held_until`, so one whose order vanished never blocks the code for good.
 */
export const rewardCodeHolds: Migration = {
  async up(db) {
    await db.schema.alterTable('redemptions', (t) => {
      t.string('held_order_id', 100).nullable();
      t.bigInteger('held_until').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('redemptions', (t) => {
      t.dropColumn('held_order_id');
      t.dropColumn('held_until');
    });
  },
};
