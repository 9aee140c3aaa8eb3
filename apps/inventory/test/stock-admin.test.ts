/** Operators' stock changes racing customers' reservations, on the backend under test. */
import { expect } from 'chai';
import { expectNoServerFailures, withBusyCores } from '@storefront/testing';
import { ReservationStore } from '../src/stores/reservations';
import { StockAdmin } from '../src/stores/stock-admin';
import { OWNER, startInventory, type InventoryHarness } from './harness';

describe('inventory: operator stock changes under concurrency', () => {
  let h: InventoryHarness;
  let admin: StockAdmin;
  beforeEach(async () => {
    h = await startInventory();
    const now = () => h.clock.now();
    admin = new StockAdmin(h.server.store.db, new ReservationStore(h.server.store.db, { now }), now);
  });
  afterEach(async () => h?.stop());

  it('restocks racing reservations lose no unit: on hand = start + deliveries, every hold counted', async () => {
    // beta-1mg starts with 10 units.
    const [, orders] = await withBusyCores(() =>
      Promise.all([
        Promise.all(Array.from({ length: 10 }, () => admin.restock('beta-1mg', 3, OWNER, 'delivery'))),
        Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            h.client.reserve({
              orderReference: `race-${i}`,
              lines: [{ sku: 'beta-1mg', quantity: 1 }],
              ttlSeconds: 600,
            }),
          ),
        ),
      ]),
    );
    expectNoServerFailures(orders);
    const held = orders.filter((order) => order.status === 'fulfilled').length;
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10 + 30, reserved: held });
    expect(held).to.be.at.least(10);
  });

  it('set-stock never goes below units that concurrent reservations hold', async () => {
    const [orders, count] = await withBusyCores(() =>
      Promise.all([
        Promise.allSettled(
          Array.from({ length: 8 }, (_, i) =>
            h.client.reserve({
              orderReference: `count-${i}`,
              lines: [{ sku: 'beta-1mg', quantity: 1 }],
              ttlSeconds: 600,
            }),
          ),
        ),
        admin.setStock('beta-1mg', 4, OWNER).then(
          () => 'set',
          (error: { code?: string }) => error.code,
        ),
      ]),
    );
    expectNoServerFailures(orders);
    const { onHand, reserved } = await h.stockOf('beta-1mg');
    expect(reserved).to.be.at.most(onHand);
    expect(count).to.be.oneOf(['set', 'stock_held']);
  });

  // The first hold of a stock-limited SKU lets the serving process hold it next time without reading
  // first; an operator's change from another process (the admin's own store) must still count.
  it('a SKU made unlimited after an order held it is reserved as unlimited, holding no units', async () => {
    await h.client.reserve({ orderReference: 'counted', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 600 });
    await h.client.release({ orderReference: 'counted' });
    await admin.setUnlimited('beta-1mg', OWNER);
    const { reservation } = await h.client.reserve({
      orderReference: 'free',
      lines: [{ sku: 'beta-1mg', quantity: 1 }],
      ttlSeconds: 600,
    });
    expect(reservation?.status).to.equal('active');
    const line = await h.server.store.db('reservation_lines').where({ order_reference: 'free' }).first('holds_stock');
    expect(Boolean(line.holds_stock)).to.equal(false);
  });

  it('a SKU removed after an order held it is refused as unknown, not as out of stock', async () => {
    await h.client.reserve({ orderReference: 'counted', lines: [{ sku: 'alpha-5mg', quantity: 1 }], ttlSeconds: 600 });
    await h.client.release({ orderReference: 'counted' });
    await admin.removeProduct('alpha', OWNER);
    const refusal = await h.client
      .reserve({ orderReference: 'gone', lines: [{ sku: 'alpha-5mg', quantity: 1 }], ttlSeconds: 600 })
      .catch((error: { code?: string }) => error);
    expect(refusal).to.deep.include({ code: 'unknown_sku' });
  });

  it('removing a product is refused while an open order holds it and allowed once it is released', async () => {
    await h.client.reserve({ orderReference: 'holder', lines: [{ sku: 'alpha-20mg', quantity: 1 }], ttlSeconds: 600 });
    const refusal = await admin
      .removeProduct('alpha', OWNER)
      .catch((error: { code?: string; detail?: string }) => error);
    expect(refusal).to.deep.include({ code: 'product_held' });
    expect((refusal as { detail: string }).detail).to.contain('holder');
    await h.client.release({ orderReference: 'holder' });
    expect(await admin.removeProduct('alpha', OWNER)).to.deep.equal({
      id: 'alpha',
      skus: ['alpha-10mg', 'alpha-20mg', 'alpha-5mg'],
    });
    expect(
      await h.server.store.db('product_sizes').where({ product_id: 'alpha' }).count({ n: '*' }).first(),
    ).to.deep.include({ n: 0 });
  });
});
