/**
 * Checkout's migrations on the backend under test: a store from before code holds is upgraded in place, orders
 * dispatched before shipments were recorded count as recorded, and orders from before numbers are numbered.
 */
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import { migrations } from '../src/migrations';
import { CheckoutStore } from '../src/stores/checkout';
import { DELIVERY } from './support';

describe('checkout migrations', () => {
  let stores: TestStores;
  let db: Knex;
  before(async () => {
    stores = await provisionStores();
    const mysqlUrl = stores.mysqlUrlFor('checkout');
    if (mysqlUrl) await ensureMysqlDatabase(mysqlUrl);
    db = openDatabase({ service: 'checkout', dataDir: stores.dataDir, mysqlUrl });
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('makes open promo orders from before holds hold their code, and counts dispatched ones as shipped', async () => {
    await applyMigrations(db, { '001-orders': migrations['001-orders']! });
    const store = new CheckoutStore(db);
    await store.savePromoCodes([{ code: 'CAPPED', discountBasisPoints: 1000, activeFrom: 0, maxRedemptions: 5 }]);
    const order = (id: string, promoKind: 'promo' | 'reward' | undefined, status: string) => ({
      id,
      reference: `ref-${id}`,
      fingerprint: 'f',
      status,
      provider: 'sandbox',
      currency: 'GBP',
      goods_pence: 1000,
      discount_pence: 100,
      shipping_pence: 495,
      total_pence: 1395,
      promo_code: promoKind === 'promo' ? 'CAPPED' : promoKind === 'reward' ? 'RW2222222222222' : null,
      promo_kind: promoKind ?? null,
      delivery_name: DELIVERY.name,
      delivery_email: DELIVERY.email,
      delivery_line1: DELIVERY.line1,
      delivery_city: DELIVERY.city,
      delivery_postcode: DELIVERY.postcode,
      delivery_country: DELIVERY.country,
      created_at: 1000,
      updated_at: 1000,
    });
    await db('orders').insert([
      order('open-promo', 'promo', 'pending_payment'),
      order('paid-promo', 'promo', 'paid'),
      order('failed-promo', 'promo', 'failed'),
      order('open-reward', 'reward', 'pending_payment'),
      order('open-plain', undefined, 'pending_payment'),
    ]);

    // Every migration after the first, whatever later ones are added: up to shipments, an order is dispatched.
    const beforeShipments = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '060'));
    expect(await applyMigrations(db, beforeShipments)).to.deep.equal(
      Object.keys(beforeShipments).filter((name) => name !== '001-orders'),
    );
    await db('orders').where({ id: 'paid-promo' }).update({ status: 'dispatched', dispatched_at: 2000 });
    await db('orders').where({ id: 'open-plain' }).update({ created_at: 500 });
    expect(await applyMigrations(db, migrations)).to.deep.equal(
      Object.keys(migrations).filter((name) => name >= '060'),
    );
    // Its notice went with the dispatch: its shipment counts as recorded, no pass mails it again.
    const recorded = await db('orders').whereNotNull('shipment_recorded_at').select('id', 'shipment_recorded_at');
    expect(recorded.map((row) => ({ ...row, shipment_recorded_at: Number(row.shipment_recorded_at) }))).to.deep.equal([
      { id: 'paid-promo', shipment_recorded_at: 2000 },
    ]);
    const holds = await db('promo_holds').select('order_id', 'code', 'held_at');
    expect(holds.map((row) => ({ ...row, held_at: Number(row.held_at) }))).to.deep.equal([
      { order_id: 'open-promo', code: 'CAPPED', held_at: 1000 },
    ]);
    expect(await store.promoUsage('CAPPED')).to.deep.include({ redeemed: 0, held: 1 });
    // Numbered in creation order, the same instant by id, from 10001 (decision 1285).
    const numbered = await db('orders').orderBy('order_number').select('id', 'order_number');
    expect(numbered.map((row) => [row.id, Number(row.order_number)])).to.deep.equal([
      ['open-plain', 10001],
      ['failed-promo', 10002],
      ['open-promo', 10003],
      ['open-reward', 10004],
      ['paid-promo', 10005],
    ]);
    expect((await store.findByNumber('srs-10003'))?.id).to.equal('open-promo');
  });
});
