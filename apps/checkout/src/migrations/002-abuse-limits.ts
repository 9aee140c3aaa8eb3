import type { Migration } from '@storefront/db';
import { COUNTER_TABLE, createCounterTable } from '@storefront/rate-limit';

/**
 * Abuse limits: fixed-window counters (when Redis is not configured), the client address
 * bucket an order came from (hashed, like every limiter key) so open orders can be counted
 * per address, and one lock row per holder (address or account) that serialises its new orders.
 */
export const abuseLimits: Migration = {
  async up(db) {
    await createCounterTable(db);
    await db.schema.alterTable('orders', (t) => {
      t.string('client_address_key', 100).nullable();
      t.index(['client_address_key', 'status'], 'orders_client_address_status');
      t.index(['account_id', 'status'], 'orders_account_status');
    });
    await db.schema.createTable('order_holders', (t) => {
      t.string('holder_key', 100).primary();
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('order_holders');
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['account_id', 'status'], 'orders_account_status');
      t.dropIndex(['client_address_key', 'status'], 'orders_client_address_status');
      t.dropColumn('client_address_key');
    });
    await db.schema.dropTableIfExists(COUNTER_TABLE);
  },
};
