import type { Migration } from '@storefront/db';

/**
 * Returns after delivery (decision 1325): the lines a customer said they are sending back, then the owner's decision
 * when the goods arrive (refunded, with the refund it made, or refused with a reason).
 */
export const returns: Migration = {
  async up(db) {
    await db.schema.createTable('returns', (t) => {
      t.string('id', 36).primary();
      t.string('order_id', 36).notNullable().index('returns_by_order');
      // [{sku, quantity}]
      t.text('lines_json').notNullable();
      // requested | refunded | refused
      t.string('state', 16).notNullable();
      // Epoch milliseconds.
      t.bigInteger('requested_at').notNullable();
      t.bigInteger('decided_at').nullable();
      t.string('decided_by', 320).nullable();
      t.string('refund_id', 36).nullable();
      t.string('refused_reason', 200).nullable();
      t.index(['state', 'requested_at'], 'returns_by_state');
    });
  },
  async down(db) {
    await db.schema.dropTable('returns');
  },
};
