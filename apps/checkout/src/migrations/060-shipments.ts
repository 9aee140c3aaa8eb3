import type { Migration } from '@storefront/db';

/**
 * When inventory was told a dispatched order shipped (its batches recorded as shipped) and its dispatch notice, naming
 * those batches, was queued. A dispatch made where inventory cannot be reached (the ops command line) waits here for
 * the service's next pass. Orders dispatched before this column were noticed already: they count as recorded.
 */
export const shipments: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      // Epoch milliseconds.
      t.bigInteger('shipment_recorded_at').nullable();
      t.index(['shipment_recorded_at', 'dispatched_at'], 'orders_by_shipment_recorded');
    });
    await db('orders')
      .whereNotNull('dispatched_at')
      .update({ shipment_recorded_at: db.ref('dispatched_at') });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropIndex(['shipment_recorded_at', 'dispatched_at'], 'orders_by_shipment_recorded');
      t.dropColumn('shipment_recorded_at');
    });
  },
};
