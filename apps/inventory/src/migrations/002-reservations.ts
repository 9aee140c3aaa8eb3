import type { Migration } from '@storefront/db';

export const reservations: Migration = {
  async up(db) {
    // One row per order reference; the primary key is what makes Reserve idempotent.
    await db.schema.createTable('reservations', (t) => {
      t.string('order_reference', 128).primary();
      t.string('status', 16).notNullable();
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      // The sweeper's query: active reservations by expiry.
      t.index(['status', 'expires_at'], 'reservations_status_expiry');
      t.check("?? in ('active', 'committed', 'released')", ['status'], 'reservation_status_known');
    });
    // `holds_stock` records whether the line took units from a stock row, so Commit and Release
    // give back exactly what Reserve took even if the SKU's stock-limited flag changes later.
    await db.schema.createTable('reservation_lines', (t) => {
      t.string('order_reference', 128)
        .notNullable()
        .references('order_reference')
        .inTable('reservations')
        .onDelete('CASCADE');
      t.string('sku', 100).notNullable();
      t.integer('quantity').notNullable();
      t.boolean('holds_stock').notNullable();
      t.integer('position').notNullable();
      t.primary(['order_reference', 'sku']);
      t.index(['sku'], 'reservation_lines_sku');
      t.check('?? > 0', ['quantity'], 'reservation_line_quantity_positive');
    });
  },
  async down(db) {
    for (const table of ['reservation_lines', 'reservations']) await db.schema.dropTableIfExists(table);
  },
};
