import type { Migration } from '@storefront/db';

/**
 * The console's dispatch queue reads paid orders oldest payment first, a page at a time (keyset on paid_at, id): this
 * index keeps each page to the orders it shows, however many orders the shop has sent before (decision 1330).
 */
export const dispatchQueue: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.index(['status', 'paid_at', 'id'], 'orders_dispatch_queue');
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['status', 'paid_at', 'id'], 'orders_dispatch_queue');
    });
  },
};
