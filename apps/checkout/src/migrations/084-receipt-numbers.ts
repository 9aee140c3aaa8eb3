import type { Migration } from '@storefront/db';

/**
 * Receipt numbers without gaps (decision 1290): one counter row per series, taken in the transaction that records
 * the payment's confirmation, and the number kept on the order. Orders paid before this migration are numbered
 * here in the order their payments were confirmed (those paid before paid_at was recorded, as of their creation), so
 * every paid order has a receipt.
 */
export const receiptNumbers: Migration = {
  async up(db) {
    await db.schema.createTable('document_counters', (t) => {
      t.string('series', 16).primary();
      t.integer('last_number').notNullable();
    });
    await db.schema.alterTable('orders', (t) => {
      t.integer('receipt_number').nullable().unique('orders_by_receipt_number');
    });
    const paid = await db('orders')
      .whereNotNull('paid_at')
      .orWhereIn('status', ['paid', 'dispatched', 'delivered', 'partially_refunded', 'refunded'])
      .orderByRaw('coalesce(paid_at, created_at), id')
      .select('id');
    for (const [index, row] of paid.entries())
      await db('orders')
        .where({ id: row.id as string })
        .update({ receipt_number: index + 1 });
    await db('document_counters').insert({ series: 'receipt', last_number: paid.length });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropUnique(['receipt_number'], 'orders_by_receipt_number');
      t.dropColumn('receipt_number');
    });
    await db.schema.dropTable('document_counters');
  },
};
