import type { Migration } from '@storefront/db';

/**
 * The stock movements ledger (decision 1319): one row per change of a counted size's units on hand, written in the
 * transaction that changes them, never updated or deleted. No foreign key to `stock`: a size that stops being counted
 * keeps its history.
 */
export const stockMovements: Migration = {
  async up(db) {
    await db.schema.createTable('stock_movements', (t) => {
      t.bigIncrements('id').primary();
      // Epoch milliseconds.
      t.bigInteger('occurred_at').notNullable();
      t.string('sku', 100).notNullable();
      // Units on hand gained (positive) or lost (negative), and the count after it.
      t.integer('units').notNullable();
      t.integer('on_hand_after').notNullable();
      t.string('reason', 32).notNullable();
      // An order reference, a batch number (several, space-separated, for a retest day), or a staff action's id.
      t.text('reference').notNullable();
      t.index(['occurred_at', 'id']);
      t.check('?? <> 0', ['units'], 'stock_movement_changes_units');
      t.check('?? >= 0', ['on_hand_after'], 'stock_movement_on_hand_never_negative');
    });
  },
  async down(db) {
    await db.schema.dropTable('stock_movements');
  },
};
