import type { Migration } from '@storefront/db';

/**
 * When the reconciler next reads an open order from the provider (recent orders often, older ones
 * less, every order at the end of its stock hold), and the short lease a replica takes on a batch
 * of orders it is reading, so two replicas never read the same order at once.
 */
export const pollSchedule: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.bigInteger('next_check_at').nullable();
      t.string('poll_token', 32).nullable();
      t.bigInteger('poll_until').nullable();
      t.index(['closed_at', 'next_check_at']);
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['closed_at', 'next_check_at']);
      t.dropColumn('next_check_at');
      t.dropColumn('poll_token');
      t.dropColumn('poll_until');
    });
  },
};
