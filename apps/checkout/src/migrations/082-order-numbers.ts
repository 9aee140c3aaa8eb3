import type { Migration } from '@storefront/db';

/**
 * The short number people read an order by (decision 1285). `order_numbers` hands them out: its auto-increment
 * sequence gives each new order the next one in the transaction that saves the order, safe across replicas on both
 * backends; a rolled-back save may leave a gap, never a duplicate. `orders.order_number` keeps the number (the
 * sequence plus ORDER_NUMBER_BASE, so the first is 10001) for reads and look-ups. Orders saved before this migration
 * are numbered in creation order.
 */
export const ORDER_NUMBER_BASE = 10_000;

export const orderNumbers: Migration = {
  async up(db) {
    await db.schema.createTable('order_numbers', (t) => {
      t.increments('sequence').primary();
      // No foreign key: the number is taken before the order's row is written, in the same transaction.
      t.string('order_id', 36).notNullable().unique();
    });
    await db.schema.alterTable('orders', (t) => {
      t.bigInteger('order_number').nullable().unique('orders_by_number');
    });
    await db.into(db.raw('?? (??)', ['order_numbers', 'order_id'])).insert(
      db('orders')
        .select('id')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]),
    );
    await db('orders').update({
      order_number: db('order_numbers')
        .select(db.raw('?? + ?', ['sequence', ORDER_NUMBER_BASE]))
        .where('order_numbers.order_id', db.ref('orders.id')),
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropUnique(['order_number'], 'orders_by_number');
      t.dropColumn('order_number');
    });
    await db.schema.dropTable('order_numbers');
  },
};
