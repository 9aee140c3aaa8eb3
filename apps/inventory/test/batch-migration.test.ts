/** A store from before batches: its stock becomes one legacy batch per counted size, its sales are taken from them. */
import { expect } from 'chai';
import { applyMigrations, openServiceStore, type Knex } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import { legacyBatchNumber, normalizeBatchNumber } from '../src/domain/batch';
import { migrations } from '../src/migrations';
import { ReservationStore } from '../src/stores/reservations';

const BEFORE_BATCHES = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '005'));
const LONG_SKU = `${'long-product-name-'.repeat(3)}x-250mg`;

describe('inventory: the migration to batches', () => {
  let stores: TestStores;
  let db: Knex;

  beforeEach(async () => {
    stores = await provisionStores();
    db = await openServiceStore(
      { service: 'inventory', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('inventory') },
      BEFORE_BATCHES,
      { migrate: true },
    );
  });
  afterEach(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('makes one legacy batch per counted size, empty ones too, and records past sales as taken from them', async () => {
    await db('products').insert([
      { id: 'alpha', name: 'Alpha', description: '', position: 0 },
      { id: LONG_SKU.slice(0, -6), name: 'Long', description: '', position: 1 },
    ]);
    await db('product_sizes').insert([
      { sku: 'alpha-5mg', product_id: 'alpha', size: '5mg', price_pence: 100, position: 0 },
      { sku: 'alpha-2.5ml', product_id: 'alpha', size: '2.5ml', price_pence: 100, position: 1 },
      { sku: 'alpha-1g', product_id: 'alpha', size: '1g', price_pence: 100, position: 2 },
      { sku: LONG_SKU, product_id: LONG_SKU.slice(0, -6), size: '250mg', price_pence: 100, position: 0 },
    ]);
    await db('stock').insert([
      { sku: 'alpha-5mg', on_hand: 7, reserved: 2 },
      { sku: 'alpha-2.5ml', on_hand: 0, reserved: 0 },
      { sku: LONG_SKU, on_hand: 4, reserved: 0 },
    ]);
    const order = (reference: string, status: string, updatedAt: number, lines: Array<[string, number, boolean]>) =>
      db.transaction(async (trx) => {
        await trx('reservations').insert({
          order_reference: reference,
          status,
          expires_at: updatedAt + 1,
          created_at: updatedAt,
          updated_at: updatedAt,
        });
        await trx('reservation_lines').insert(
          lines.map(([sku, quantity, holdsStock], position) => ({
            order_reference: reference,
            sku,
            quantity,
            holds_stock: holdsStock,
            position,
          })),
        );
      });
    await order('paid', 'committed', 1000, [
      ['alpha-5mg', 3, true],
      ['alpha-1g', 1, false],
    ]);
    await order('released', 'released', 2000, [['alpha-5mg', 1, true]]);
    await order('held', 'active', Date.now() + 60_000, [['alpha-5mg', 2, true]]);

    await applyMigrations(db, migrations);

    const batches = await db('batches').orderBy('number').select();
    expect(
      batches.map((row) => ({
        number: row.number,
        sku: row.sku,
        units: Number(row.units),
        legacy: Boolean(row.legacy),
        status: row.status,
        purity: row.purity_hundredths,
        retestOn: row.retest_on,
        certificate: row.certificate_sha256,
      })),
    ).to.deep.equal(
      [
        { number: legacyBatchNumber('alpha-2.5ml'), sku: 'alpha-2.5ml', units: 0 },
        { number: 'LEGACY-ALPHA-5MG', sku: 'alpha-5mg', units: 7 },
        { number: legacyBatchNumber(LONG_SKU), sku: LONG_SKU, units: 4 },
      ]
        .map((row) => ({ ...row, legacy: true, status: 'sellable', purity: null, retestOn: null, certificate: null }))
        .sort((a, b) => (a.number < b.number ? -1 : 1)),
    );
    expect(
      await db('batch_allocations').select('order_reference', 'sku', 'batch_number', 'units', 'sold_at'),
    ).to.deep.equal([
      { order_reference: 'paid', sku: 'alpha-5mg', batch_number: 'LEGACY-ALPHA-5MG', units: 3, sold_at: 1000 },
    ]);
    expect(await db('stock').where({ sku: 'alpha-5mg' }).first('on_hand', 'reserved', 'recount_at')).to.deep.equal({
      on_hand: 7,
      reserved: 2,
      recount_at: null,
    });

    // The open order is sold from the legacy batch when it is paid.
    await new ReservationStore(db).commit('held');
    expect(await db('batches').where({ number: 'LEGACY-ALPHA-5MG' }).first('units')).to.deep.equal({ units: 5 });
    expect(await db('stock').where({ sku: 'alpha-5mg' }).first('on_hand', 'reserved')).to.deep.equal({
      on_hand: 5,
      reserved: 0,
    });
  });

  it('numbers legacy batches LEGACY-<SKU>, a hashed ending where the SKU does not fit or has other characters', () => {
    expect(legacyBatchNumber('bpc-157-5mg')).to.equal('LEGACY-BPC-157-5MG');
    const numbers = [LONG_SKU, `${LONG_SKU}x`, 'water-2.5ml', 'water-2-5ml'].map(legacyBatchNumber);
    expect(new Set(numbers).size).to.equal(4);
    for (const number of numbers) {
      expect(number).to.match(/^LEGACY-/);
      expect(normalizeBatchNumber(number)).to.equal(number);
    }
    expect(numbers[0]).to.have.length(40);
  });
});
