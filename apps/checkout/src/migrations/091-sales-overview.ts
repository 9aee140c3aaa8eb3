import { dialectOf, type Migration } from '@storefront/db';

/**
 * The console's overview sums the orders paid in a range of days, and joins their lines, from an index alone: paid_at
 * first, with the total and the id beside it (MySQL keeps the id in every index already; SQLite needs it named). Its
 * refunds by day are found by state and time rather than by scanning every refund. On SQLite the lines sold are read
 * from an index holding all they need, as MySQL reads them from their primary key.
 */
export const salesOverview: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.index(['paid_at', 'total_pence', 'id'], 'orders_paid_index');
    });
    await db.schema.alterTable('refunds', (t) => {
      t.index(['state', 'created_at', 'amount_pence'], 'refunds_state_created_index');
    });
    // SQLite reads a line's row through its primary key's index; MySQL's lines are their primary key already.
    if (dialectOf(db) === 'sqlite')
      await db.schema.alterTable('order_lines', (t) => {
        t.index(['order_id', 'sku', 'quantity', 'unit_price_pence'], 'order_lines_sold_index');
      });
  },
  async down(db) {
    if (dialectOf(db) === 'sqlite')
      await db.schema.alterTable('order_lines', (t) => {
        t.dropIndex(['order_id', 'sku', 'quantity', 'unit_price_pence'], 'order_lines_sold_index');
      });
    await db.schema.alterTable('refunds', (t) => {
      t.dropIndex(['state', 'created_at', 'amount_pence'], 'refunds_state_created_index');
    });
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['paid_at', 'total_pence', 'id'], 'orders_paid_index');
    });
  },
};
