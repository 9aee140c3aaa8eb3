import type { Migration } from '@storefront/db';

/**
 * Refunds of paid orders. A row is written, under the order's lock, before the provider is
 * asked, so a refund whose answer was lost is still known and is finished by the sweep from
 * the provider's record; its stock and points effects are flagged once done. The order keeps
 * what has been refunded in its own column, so its status never hides an earlier fact.
 */
export const refunds: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.bigInteger('refunded_pence').notNullable().defaultTo(0);
    });
    await db.schema.createTable('refunds', (t) => {
      t.string('id', 36).primary();
      t.string('order_id', 36).notNullable().references('id').inTable('orders').onDelete('CASCADE');
      t.string('order_reference', 90).notNullable();
      // The same key answers the same refund; with another request it is refused.
      t.string('idempotency_key', 100).notNullable().unique();
      t.string('fingerprint', 64).notNullable();
      t.bigInteger('amount_pence').notNullable();
      t.string('reason', 200).notNullable();
      // JSON [{sku, quantity}]: the lines returned to stock.
      t.text('lines_json').notNullable();
      // pending | succeeded | failed
      t.string('state', 10).notNullable();
      // The provider's error code when it refused.
      t.string('failure_code', 64).nullable();
      // The provider transaction refunded, once known.
      t.string('provider_transaction_id', 100).nullable();
      // Set by the one attempt that sends the refund to the provider; nothing sends it again.
      t.bigInteger('sent_at').nullable();
      // The order's refunded total including this refund, fixed when it succeeded.
      t.bigInteger('refunded_total_pence').nullable();
      // The staff member who asked (JSON StaffIdentity), so the audit record can be written when it succeeds.
      t.string('created_by', 254).notNullable();
      t.text('staff_json').notNullable();
      // After success: units returned and points reversed, each once done.
      t.bigInteger('stock_returned_at').nullable();
      t.bigInteger('points_reversed_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.index(['order_id', 'created_at']);
      t.index(['state', 'sent_at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('refunds');
    await db.schema.alterTable('orders', (t) => {
      t.dropColumn('refunded_pence');
    });
  },
};
