/**
 * The stock movements ledger: every change of a counted size's units on hand recorded with its sign, the units on hand
 * after it, its reason and reference, in the change's own transaction; holds record nothing; the ledger read a page at
 * a time by staff only.
 */
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { status } from '@grpc/grpc-js';
import { inventory } from '@storefront/proto';
import type { AppError } from '@storefront/errors';
import { SERVICE_TOKEN_METADATA } from '@storefront/service-token';
import {
  callRaw,
  expectNoServerFailures,
  rejection,
  startForEachTest,
  testSigner,
  withBusyCores,
} from '@storefront/testing';
import { OWNER, STAFF, delivery, startInventory, type InventoryHarness } from './harness';

const asOwner = { staff: OWNER };
const asStaff = { staff: STAFF };
const DAY_MS = 24 * 60 * 60 * 1000;
/** The harness's clock starts here (2026-01-01T00:00Z); every period below covers it. */
const FROM = '2025-12-01';
const UNTIL = '2027-01-01';

type Movement = Pick<inventory.StockMovement, 'sku' | 'units' | 'onHandAfter' | 'reason' | 'reference'>;

describe('inventory: stock movements', () => {
  let h: InventoryHarness;
  startForEachTest(startInventory, (started) => (h = started));

  /** Every movement of the period, following the cursor, as staff read them. */
  async function movements(from = FROM, until = UNTIL, limit = 0): Promise<inventory.StockMovement[]> {
    const all: inventory.StockMovement[] = [];
    let cursor = '';
    do {
      const page = await h.staffClient.listStockMovements(
        { occurredFrom: from, occurredUntil: until, limit, cursor },
        asStaff,
      );
      all.push(...page.movements);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }
  const movementsAfterImport = async (): Promise<Movement[]> =>
    (await movements())
      .filter((movement) => movement.reason !== 'import')
      .map(({ sku, units, onHandAfter, reason, reference }) => ({ sku, units, onHandAfter, reason, reference }));
  const staffActionId = async (action: string) =>
    String((await listStaffActions(h.server.store.db, { action })).actions[0]!.id);
  const sell = async (orderReference: string, sku: string, quantity: number) => {
    await h.client.reserve({ orderReference, lines: [{ sku, quantity }], ttlSeconds: 0 });
    return h.client.commit({ orderReference });
  };

  /** The ledger and the count agree: each size's movements add up to its units on hand, in order. */
  async function expectLedgerMatchesStock(): Promise<void> {
    const bySku = new Map<string, number>();
    for (const movement of await movements()) {
      const after = (bySku.get(movement.sku) ?? 0) + movement.units;
      expect(movement.onHandAfter, `${movement.sku} ${movement.reason}`).to.equal(after);
      bySku.set(movement.sku, after);
    }
    for (const [sku, onHand] of bySku) {
      const row = await h.server.store.db('stock').where({ sku }).first('on_hand');
      expect(row ? Number(row.on_hand) : 0, sku).to.equal(onHand);
    }
  }

  it('records the import that started counting each size', async () => {
    expect(
      (await movements()).map(({ sku, units, onHandAfter, reason, reference, occurredAt }) => ({
        sku,
        units,
        onHandAfter,
        reason,
        reference,
        occurredAt,
      })),
    ).to.have.deep.members([
      {
        sku: 'alpha-5mg',
        units: 50,
        onHandAfter: 50,
        reason: 'import',
        reference: '',
        occurredAt: '2026-01-01T00:00:00.000Z',
      },
      {
        sku: 'alpha-10mg',
        units: 3,
        onHandAfter: 3,
        reason: 'import',
        reference: '',
        occurredAt: '2026-01-01T00:00:00.000Z',
      },
      {
        sku: 'beta-1mg',
        units: 10,
        onHandAfter: 10,
        reason: 'import',
        reference: '',
        occurredAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('records a sale and a return against the order, and nothing for holds released or lapsed', async () => {
    await sell('order-1', 'alpha-5mg', 4);
    await h.client.reserve({ orderReference: 'order-2', lines: [{ sku: 'alpha-5mg', quantity: 2 }], ttlSeconds: 0 });
    await h.client.release({ orderReference: 'order-2' });
    await h.client.reserve({ orderReference: 'order-3', lines: [{ sku: 'alpha-5mg', quantity: 2 }], ttlSeconds: 1 });
    h.clock.advance(2000);
    expect(await h.server.reservations.releaseExpired()).to.equal(1);
    // A committed sale released afterwards changes nothing.
    await h.client.release({ orderReference: 'order-1' });
    await h.client.returnStock({
      returnId: 'refund-1',
      orderReference: 'order-1',
      lines: [{ sku: 'alpha-5mg', quantity: 1 }],
    });
    await h.client.returnStock({
      returnId: 'refund-1',
      orderReference: 'order-1',
      lines: [{ sku: 'alpha-5mg', quantity: 1 }],
    });
    // A size without a count moves nothing.
    await sell('order-4', 'alpha-20mg', 5);
    expect(await movementsAfterImport()).to.deep.equal([
      { sku: 'alpha-5mg', units: -4, onHandAfter: 46, reason: 'sale', reference: 'order-1' },
      { sku: 'alpha-5mg', units: 1, onHandAfter: 47, reason: 'return', reference: 'order-1' },
    ]);
    await expectLedgerMatchesStock();
  });

  it('records an owner’s restock, count and uncounting against the staff action that made them', async () => {
    await h.staffClient.restockSku({ sku: 'beta-1mg', units: 5, note: 'delivery 7' }, asOwner);
    const restocked = await staffActionId('stock_restocked');
    await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 12, note: 'counted' }, asOwner);
    const counted = await staffActionId('stock_set');
    // The same count again moves nothing.
    await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 12, note: '' }, asOwner);
    await h.staffClient.setSkuUnlimited({ sku: 'beta-1mg', note: '' }, asOwner);
    const uncounted = await staffActionId('stock_unlimited');
    await h.staffClient.setSkuStock({ sku: 'alpha-20mg', onHand: 8, note: '' }, asOwner);
    const started = await staffActionId('stock_set');
    expect(new Set([restocked, counted, uncounted, started]).size).to.equal(4);
    expect(await movementsAfterImport()).to.deep.equal([
      { sku: 'beta-1mg', units: 5, onHandAfter: 15, reason: 'restock', reference: restocked },
      { sku: 'beta-1mg', units: -3, onHandAfter: 12, reason: 'stock_set', reference: counted },
      { sku: 'beta-1mg', units: -12, onHandAfter: 0, reason: 'stock_uncounted', reference: uncounted },
      { sku: 'alpha-20mg', units: 8, onHandAfter: 8, reason: 'stock_set', reference: started },
    ]);
    // The audit log's record says the same count the ledger does.
    const [set] = (await listStaffActions(h.server.store.db, { action: 'stock_set' })).actions.slice(-1);
    expect(set!.after).to.deep.include({ onHand: 12, reserved: 0 });
  });

  it('records a new size’s first count and a removed product’s units against the staff action', async () => {
    await h.staffClient.createProduct(
      {
        productId: 'gamma',
        details: { name: 'Gamma', description: '', vatRateBasisPoints: 2000 },
        firstSize: { size: '5mg', pricePence: 2999, stock: 7 },
      },
      asOwner,
    );
    const created = await staffActionId('product_created');
    await h.staffClient.removeProduct({ productId: 'alpha' }, asOwner);
    const removed = await staffActionId('product_removed');
    expect(await movementsAfterImport()).to.deep.equal([
      { sku: 'gamma-5mg', units: 7, onHandAfter: 7, reason: 'size_added', reference: created },
      { sku: 'alpha-10mg', units: -3, onHandAfter: 0, reason: 'product_removed', reference: removed },
      { sku: 'alpha-5mg', units: -50, onHandAfter: 0, reason: 'product_removed', reference: removed },
    ]);
  });

  it('records batches received, taken off and back on sale, recalled, past their retest day, by number', async () => {
    await h.staffClient.receiveBatch(delivery({ number: 'B-1', units: 5, retestOn: '2026-12-31' }), asOwner);
    await h.staffClient.receiveBatch(delivery({ number: 'B-2', units: 4, retestOn: '2026-01-31' }), asOwner);
    await h.staffClient.quarantineBatch({ number: 'B-1', note: '' }, asOwner);
    await h.staffClient.releaseBatch({ number: 'B-1', note: '' }, asOwner);
    await h.staffClient.recallBatch({ number: 'B-1', note: '' }, asOwner);
    h.clock.advance(31 * DAY_MS);
    // The next hold meets the stale count and takes B-2 off it first.
    await sell('order-1', 'beta-1mg', 1);
    expect(await movementsAfterImport()).to.deep.equal([
      { sku: 'beta-1mg', units: 5, onHandAfter: 15, reason: 'batch_received', reference: 'B-1' },
      { sku: 'beta-1mg', units: 4, onHandAfter: 19, reason: 'batch_received', reference: 'B-2' },
      { sku: 'beta-1mg', units: -5, onHandAfter: 14, reason: 'batch_quarantined', reference: 'B-1' },
      { sku: 'beta-1mg', units: 5, onHandAfter: 19, reason: 'batch_released', reference: 'B-1' },
      { sku: 'beta-1mg', units: -5, onHandAfter: 14, reason: 'batch_recalled', reference: 'B-1' },
      { sku: 'beta-1mg', units: -4, onHandAfter: 10, reason: 'past_retest', reference: 'B-2' },
      { sku: 'beta-1mg', units: -1, onHandAfter: 9, reason: 'sale', reference: 'order-1' },
    ]);
    await expectLedgerMatchesStock();
  });

  it('records units an order line took off sale when staff move it onto another batch', async () => {
    await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 0, note: '' }, asOwner);
    await h.staffClient.receiveBatch(delivery({ number: 'B-1', units: 3 }), asOwner);
    await h.staffClient.receiveBatch(delivery({ number: 'B-2', units: 3 }), asOwner);
    await h.client.reserve({ orderReference: 'order-1', lines: [{ sku: 'beta-1mg', quantity: 2 }], ttlSeconds: 0 });
    // Both batches are off sale while the order is paid: the line's units find no batch and leave no count.
    await h.staffClient.quarantineBatch({ number: 'B-1', note: '' }, asOwner);
    await h.staffClient.quarantineBatch({ number: 'B-2', note: '' }, asOwner);
    await h.client.commit({ orderReference: 'order-1' });
    await h.staffClient.releaseBatch({ number: 'B-2', note: '' }, asOwner);
    await h.staffClient.moveOrderAllocation(
      { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'B-2', fromBatch: '' },
      asStaff,
    );
    const moved = (await movementsAfterImport()).filter((movement) => movement.reference === 'order-1');
    expect(moved).to.deep.equal([
      { sku: 'beta-1mg', units: -2, onHandAfter: 1, reason: 'batch_changed', reference: 'order-1' },
    ]);
    await expectLedgerMatchesStock();
  });

  it('records exactly one movement per unit sold when fifty buyers of one unit each pay at once', async () => {
    const outcomes = await withBusyCores(() =>
      Promise.allSettled(Array.from({ length: 50 }, (_, i) => sell(`buyer-${i}`, 'alpha-5mg', 1))),
    );
    expectNoServerFailures(outcomes);
    const refusals = outcomes
      .filter((outcome) => outcome.status === 'rejected')
      .map((outcome) => ((outcome as PromiseRejectedResult).reason as AppError).code);
    expect(refusals.filter((code) => code !== 'out_of_stock' && code !== 'service_unavailable')).to.deep.equal([]);
    const committed: string[] = await h.server.store
      .db('reservations')
      .where('status', 'committed')
      .orderBy('order_reference')
      .pluck('order_reference');
    expect(committed.length).to.be.greaterThan(0);
    const sales = (await movements()).filter((movement) => movement.reason === 'sale');
    expect(sales.map((sale) => sale.reference).sort()).to.deep.equal(committed);
    expect(sales.every((sale) => sale.units === -1)).to.equal(true);
    expect(new Set(sales.map((sale) => sale.onHandAfter)).size).to.equal(sales.length);
    await expectLedgerMatchesStock();
  });

  describe('reading the ledger', () => {
    it('pages by cursor in the order the counts changed, within the period, with bounded pages', async () => {
      for (let i = 0; i < 5; i += 1) {
        h.clock.advance(DAY_MS);
        await sell(`order-${i}`, 'beta-1mg', 1);
      }
      const all = await movements(FROM, UNTIL, 2);
      expect(all.map((movement) => movement.onHandAfter).slice(-5)).to.deep.equal([9, 8, 7, 6, 5]);
      // From midnight of the second day's sale (included) to midnight of the fourth's (excluded).
      const period = await movements('2026-01-03T00:00:00Z', '2026-01-05T00:00:00Z', 1);
      expect(period.map((movement) => movement.reference)).to.deep.equal(['order-1', 'order-2']);
      const read = (request: Partial<inventory.ListStockMovementsRequest>) =>
        rejection(
          h.staffClient.listStockMovements(
            { occurredFrom: FROM, occurredUntil: UNTIL, limit: 0, cursor: '', ...request },
            asStaff,
          ),
        );
      expect(await read({ limit: 501 })).to.include({ kind: 'invalid_argument', code: 'invalid_limit' });
      expect(await read({ cursor: 'not-a-cursor' })).to.include({ kind: 'invalid_argument', code: 'invalid_cursor' });
      expect(await read({ occurredFrom: 'yesterday' })).to.include({ kind: 'invalid_argument', code: 'invalid_date' });
    });

    it('lets any staff member read and export the ledger, and no customer or other service', async () => {
      const request = { occurredFrom: FROM, occurredUntil: UNTIL, limit: 0, cursor: '' };
      expect((await h.staffClient.listStockMovements(request, asOwner)).movements).to.have.length(3);
      expect((await h.staffClient.listStockMovements(request, asStaff)).movements).to.have.length(3);
      expect(await rejection(h.gateway.listStockMovements(request))).to.include({ code: 'staff_unauthorized' });
      const asCheckout = { [SERVICE_TOKEN_METADATA]: await testSigner('checkout').tokenFor('inventory') };
      const { listStockMovements } = inventory.InventoryServiceService;
      expect((await callRaw(h.server.address, listStockMovements, asCheckout, request)).status).to.equal(
        status.PERMISSION_DENIED,
      );
      expect(await rejection(h.staffClient.listStockMovements(request, { customer: 'user-1' }))).to.include({
        kind: 'unauthenticated',
        code: 'staff_unauthorized',
      });
      expect(
        await rejection(h.gateway.recordStockMovementsExport({ fromDate: '2026-01-01', toDate: '2026-01-31' })),
      ).to.include({ kind: 'unauthenticated' });

      // British Summer Time: the London day of 1 July starts at 23:00 UTC the day before.
      const bounds = await h.staffClient.recordStockMovementsExport(
        { fromDate: '2026-07-01', toDate: '2026-07-31' },
        asStaff,
      );
      expect(bounds).to.deep.equal({
        occurredFrom: '2026-06-30T23:00:00.000Z',
        occurredUntil: '2026-07-31T23:00:00.000Z',
      });
      const [recorded] = (await listStaffActions(h.server.store.db, { action: 'stock_movements_exported' })).actions;
      expect(recorded).to.include({ subject: '2026-07-01..2026-07-31', staffEmail: STAFF.email });
      expect(
        await rejection(
          h.staffClient.recordStockMovementsExport({ fromDate: '2026-07-31', toDate: '2026-07-01' }, asStaff),
        ),
      ).to.include({ kind: 'invalid_argument' });
    });
  });
});
