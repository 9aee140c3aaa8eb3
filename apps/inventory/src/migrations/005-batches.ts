import { dialectOf, type Knex, type Migration } from '@storefront/db';
import { legacyBatchNumber } from '../domain/batch';

/** Rows per INSERT while moving existing stock and sales into batches. */
const COPY_BATCH_ROWS = 500;

/**
 * Batches with their certificates, and which batches each sale took its units from. Stock counted
 * so far becomes one legacy batch per stock-limited size (decision 1062); sales made so far are
 * recorded as taken from it.
 */
export const batches: Migration = {
  async up(db) {
    // No foreign key to product_sizes: a batch and its sales stay on record after the size is removed.
    await db.schema.createTable('batches', (t) => {
      t.string('number', 40).primary();
      t.string('sku', 100).notNullable();
      t.integer('units').notNullable();
      t.integer('purity_hundredths').nullable();
      t.string('tested_on', 10).nullable();
      t.string('laboratory', 200).nullable();
      t.string('retest_on', 10).nullable();
      // Midnight UTC after retest_on, when the batch stops selling; null for legacy stock (never).
      t.bigInteger('sellable_until').nullable();
      t.bigInteger('received_at').notNullable();
      t.string('status', 16).notNullable();
      t.boolean('legacy').notNullable().defaultTo(false);
      // The certificate's bytes are in batch_certificates, so reading a batch never reads them.
      t.string('certificate_sha256', 64).nullable();
      t.integer('certificate_bytes').nullable();
      t.bigInteger('certificate_attached_at').nullable();
      t.index(['sku', 'status'], 'batches_sku_status');
      t.check('units >= 0', [], 'batch_units_never_negative');
      t.check("status in ('sellable', 'quarantined', 'recalled')", [], 'batch_status_known');
      t.check('purity_hundredths >= 0 AND purity_hundredths <= 10000', [], 'batch_purity_in_range');
      // Only legacy stock may lack its analysis.
      t.check(
        'legacy = 1 OR (purity_hundredths IS NOT NULL AND tested_on IS NOT NULL AND laboratory IS NOT NULL' +
          ' AND retest_on IS NOT NULL AND sellable_until IS NOT NULL)',
        [],
        'batch_analysis_recorded',
      );
    });
    await db.schema.createTable('batch_certificates', (t) => {
      t.string('batch_number', 40).primary().references('number').inTable('batches').onDelete('CASCADE');
      // MEDIUMBLOB holds up to 16 MiB on MySQL; SQLite's BLOB has no size of its own.
      t.specificType('pdf', dialectOf(db) === 'mysql' ? 'mediumblob' : 'blob').notNullable();
    });
    // Units of one order line taken from one batch when the order's payment committed its reservation.
    await db.schema.createTable('batch_allocations', (t) => {
      t.string('order_reference', 128).notNullable();
      t.string('sku', 100).notNullable();
      t.string('batch_number', 40).notNullable().references('number').inTable('batches');
      t.integer('units').notNullable();
      // Of those, units a refund put back on the batch.
      t.integer('returned').notNullable().defaultTo(0);
      t.bigInteger('sold_at').notNullable();
      t.primary(['order_reference', 'sku', 'batch_number']);
      t.index(['batch_number', 'sold_at', 'order_reference'], 'batch_allocations_by_batch');
      t.check('units > 0 AND returned >= 0 AND returned <= units', [], 'batch_allocation_units');
    });
    // Units paid for while no sellable batch had them; recorded at dispatch (MoveOrderAllocation).
    await db.schema.alterTable('reservation_lines', (t) => {
      t.integer('unallocated').notNullable().defaultTo(0);
    });
    // Set on dispatch: the allocation is final.
    await db.schema.alterTable('reservations', (t) => {
      t.bigInteger('shipped_at').nullable();
    });
    // on_hand is now the units of a SKU's sellable batches, which a recall or a retest day can take
    // below the units open orders hold: only negatives are refused (decision 1060). recount_at is
    // when the first of those batches passes its retest day and on_hand must be counted again.
    await db.schema.alterTable('stock', (t) => {
      t.dropChecks(['stock_never_negative']);
      t.check('on_hand >= 0 AND reserved >= 0', [], 'stock_never_negative');
      t.bigInteger('recount_at').nullable();
    });
    await copyStockIntoLegacyBatches(db);
  },
  async down(db) {
    await db.schema.alterTable('stock', (t) => {
      t.dropColumn('recount_at');
      t.dropChecks(['stock_never_negative']);
      t.check('on_hand >= 0 AND reserved >= 0 AND reserved <= on_hand', [], 'stock_never_negative');
    });
    await db.schema.alterTable('reservations', (t) => t.dropColumn('shipped_at'));
    await db.schema.alterTable('reservation_lines', (t) => t.dropColumn('unallocated'));
    for (const table of ['batch_allocations', 'batch_certificates', 'batches'])
      await db.schema.dropTableIfExists(table);
  },
};

/**
 * One legacy batch per stock row (an empty one too, so sales before it have a batch to name),
 * received when the migration runs; every committed line that held stock is recorded as taken
 * from its size's legacy batch at its commit time.
 */
async function copyStockIntoLegacyBatches(db: Knex): Promise<void> {
  const now = Date.now();
  const stock: Array<{ sku: string; on_hand: unknown }> = await db('stock').orderBy('sku').select('sku', 'on_hand');
  const legacyOf = new Map(stock.map((row) => [row.sku, legacyBatchNumber(row.sku)]));
  for (let from = 0; from < stock.length; from += COPY_BATCH_ROWS) {
    await db('batches').insert(
      stock.slice(from, from + COPY_BATCH_ROWS).map((row) => ({
        number: legacyOf.get(row.sku),
        sku: row.sku,
        units: Number(row.on_hand),
        received_at: now,
        status: 'sellable',
        legacy: true,
      })),
    );
  }
  let after = { order_reference: '', sku: '' };
  for (;;) {
    const sold: Array<{ order_reference: string; sku: string; quantity: unknown; updated_at: unknown }> = await db(
      'reservation_lines as l',
    )
      .join('reservations as r', 'r.order_reference', 'l.order_reference')
      .where('r.status', 'committed')
      .andWhere('l.holds_stock', true)
      .andWhere((page) =>
        page
          .where('l.order_reference', '>', after.order_reference)
          .orWhere((same) => same.where('l.order_reference', after.order_reference).andWhere('l.sku', '>', after.sku)),
      )
      .orderBy([{ column: 'l.order_reference' }, { column: 'l.sku' }])
      .limit(COPY_BATCH_ROWS)
      .select('l.order_reference', 'l.sku', 'l.quantity', 'r.updated_at');
    const rows = sold
      .filter((line) => legacyOf.has(line.sku))
      .map((line) => ({
        order_reference: line.order_reference,
        sku: line.sku,
        batch_number: legacyOf.get(line.sku),
        units: Number(line.quantity),
        returned: 0,
        sold_at: Number(line.updated_at),
      }));
    if (rows.length > 0) await db('batch_allocations').insert(rows);
    if (sold.length < COPY_BATCH_ROWS) break;
    after = sold.at(-1)!;
  }
}
