/**
 * Which batches a sale's units come from: first expiry first at Commit, back to their batches on a
 * refund, moved by staff at dispatch until the order ships, and listed per batch for a recall.
 */
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import type { inventory } from '@storefront/proto';
import type { AppError } from '@storefront/errors';
import { expectNoServerFailures, rejection, startForEachTest, withBusyCores } from '@storefront/testing';
import { OWNER, STAFF, delivery, startInventory, type InventoryHarness } from './harness';

const asOwner = { staff: OWNER };
const asStaff = { staff: STAFF };

describe('inventory: batch allocations', () => {
  let h: InventoryHarness;
  startForEachTest(startInventory, (started) => (h = started));

  const receive = (overrides: Partial<inventory.ReceiveBatchRequest>) =>
    h.staffClient.receiveBatch(delivery(overrides), asOwner);
  const sell = async (orderReference: string, sku: string, quantity: number) => {
    await h.client.reserve({ orderReference, lines: [{ sku, quantity }], ttlSeconds: 0 });
    return h.client.commit({ orderReference });
  };
  const allocationOf = async (orderReference: string) =>
    (await h.staffClient.getOrderAllocation({ orderReference }, asStaff)).allocation!;
  /** beta-1mg without its 10 units of legacy stock, with batches EARLY (3) and LATE (5). */
  const twoBatches = async () => {
    await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 0, note: '' }, asOwner);
    await receive({ number: 'LATE', units: 5, retestOn: '2026-12-31' });
    h.clock.advance(1000);
    await receive({ number: 'EARLY', units: 3, retestOn: '2026-06-30' });
  };

  describe('commit', () => {
    it('takes units first expiry first, legacy stock before any batch, and records them per order line', async () => {
      await receive({ number: 'LATE', units: 5, retestOn: '2026-12-31' });
      await receive({ number: 'EARLY', units: 5, retestOn: '2026-06-30' });
      await sell('order-1', 'beta-1mg', 12);
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 3, LATE: 5, 'LEGACY-BETA-1MG': 0 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 8, reserved: 0 });
      expect(await allocationOf('order-1')).to.deep.equal({
        orderReference: 'order-1',
        shippedAt: '',
        lines: [
          {
            sku: 'beta-1mg',
            quantity: 12,
            batches: [
              { number: 'LEGACY-BETA-1MG', units: 10, returned: 0 },
              { number: 'EARLY', units: 2, returned: 0 },
            ],
            unallocated: 0,
          },
        ],
      });
    });

    it('takes the oldest receipt first between batches with the same retest date', async () => {
      await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 0, note: '' }, asOwner);
      await receive({ number: 'SECOND-NAME-FIRST', units: 2 });
      h.clock.advance(1000);
      await receive({ number: 'A-LATER', units: 2 });
      await sell('order-1', 'beta-1mg', 3);
      expect(await h.batchUnits('beta-1mg')).to.include({ 'SECOND-NAME-FIRST': 0, 'A-LATER': 1 });
    });

    it('records nothing for an order not yet paid, and only stock-limited lines once it is', async () => {
      await h.client.reserve({
        orderReference: 'mixed',
        lines: [
          { sku: 'alpha-20mg', quantity: 2 },
          { sku: 'beta-1mg', quantity: 1 },
        ],
        ttlSeconds: 0,
      });
      expect((await allocationOf('mixed')).lines).to.deep.equal([]);
      await h.client.commit({ orderReference: 'mixed' });
      expect((await allocationOf('mixed')).lines.map((line) => line.sku)).to.deep.equal(['beta-1mg']);
      expect(await rejection(h.staffClient.getOrderAllocation({ orderReference: 'nobody' }, asStaff))).to.include({
        code: 'reservation_not_found',
      });
    });

    it('a paid order whose held units were recalled meanwhile is still sold, its units unallocated', async () => {
      await twoBatches();
      await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 7 }], ttlSeconds: 0 });
      await h.staffClient.recallBatch({ number: 'LATE', note: 'supplier recall' }, asOwner);
      // 3 units sell, 7 are held: nothing is free for anyone else.
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 3, reserved: 7 });
      expect((await h.gateway.getStock({})).available['beta-1mg']).to.equal(0);
      expect((await h.client.commit({ orderReference: 'held' })).reservation!.status).to.equal('committed');
      expect((await allocationOf('held')).lines[0]).to.deep.include({
        batches: [{ number: 'EARLY', units: 3, returned: 0 }],
        unallocated: 4,
      });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 0, LATE: 5, 'LEGACY-BETA-1MG': 0 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 0, reserved: 0 });
    });

    it('a payment after its hold lapsed takes only units nobody holds, from the batches', async () => {
      await twoBatches();
      await h.client.reserve({ orderReference: 'late', lines: [{ sku: 'beta-1mg', quantity: 4 }], ttlSeconds: 0 });
      await h.client.release({ orderReference: 'late' });
      await h.client.reserve({ orderReference: 'other', lines: [{ sku: 'beta-1mg', quantity: 5 }], ttlSeconds: 0 });
      expect(await rejection(h.client.commit({ orderReference: 'late' }))).to.include({ code: 'out_of_stock' });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 3, LATE: 5, 'LEGACY-BETA-1MG': 0 });
      await h.client.release({ orderReference: 'other' });
      await h.client.commit({ orderReference: 'late' });
      expect((await allocationOf('late')).lines[0]!.batches).to.deep.equal([
        { number: 'EARLY', units: 3, returned: 0 },
        { number: 'LATE', units: 1, returned: 0 },
      ]);
    });
  });

  describe('refunds', () => {
    it('put units back on the batches they came from, at most what each gave, the rest on the legacy one', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 5);
      await h.client.returnStock({
        returnId: 'refund-1',
        orderReference: 'order-1',
        lines: [{ sku: 'beta-1mg', quantity: 4 }],
      });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 3, LATE: 4, 'LEGACY-BETA-1MG': 0 });
      await h.client.returnStock({
        returnId: 'refund-2',
        orderReference: 'order-1',
        lines: [{ sku: 'beta-1mg', quantity: 3 }],
      });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 3, LATE: 5, 'LEGACY-BETA-1MG': 2 });
      expect((await allocationOf('order-1')).lines[0]!.batches).to.deep.equal([
        { number: 'EARLY', units: 3, returned: 3 },
        { number: 'LATE', units: 2, returned: 2 },
      ]);
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
    });

    it('units of a recalled batch go back to it and stay off sale', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 2);
      await h.staffClient.recallBatch({ number: 'EARLY', note: '' }, asOwner);
      await h.client.returnStock({
        returnId: 'refund-1',
        orderReference: 'order-1',
        lines: [{ sku: 'beta-1mg', quantity: 2 }],
      });
      expect(await h.batchUnits('beta-1mg')).to.include({ EARLY: 3 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 5, reserved: 0 });
    });
  });

  describe('dispatch', () => {
    it('staff record another batch an order line was packed from, on record with before and after', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 2);
      const { allocation } = await h.staffClient.moveOrderAllocation(
        { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'late', fromBatch: '' },
        asStaff,
      );
      expect(allocation!.lines[0]!.batches).to.deep.equal([{ number: 'LATE', units: 2, returned: 0 }]);
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 3, LATE: 3, 'LEGACY-BETA-1MG': 0 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 6, reserved: 0 });
      const [changed] = (await listStaffActions(h.server.store.db, { subject: 'order-1' })).actions;
      expect(changed).to.deep.include({
        action: 'order_batch_changed',
        staffEmail: STAFF.email,
        before: { sku: 'beta-1mg', batches: [{ number: 'EARLY', units: 2, returned: 0 }], unallocated: 0 },
        after: { sku: 'beta-1mg', batches: [{ number: 'LATE', units: 2, returned: 0 }], unallocated: 0 },
      });
      // Moving the units one batch at a time: those from LATE back to EARLY.
      await h.staffClient.moveOrderAllocation(
        { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'EARLY', fromBatch: 'LATE' },
        asStaff,
      );
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 1, LATE: 5, 'LEGACY-BETA-1MG': 0 });
    });

    it('records unallocated units on the batch they were packed from', async () => {
      await twoBatches();
      await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 4 }], ttlSeconds: 0 });
      await h.staffClient.recallBatch({ number: 'EARLY', note: '' }, asOwner);
      await h.client.commit({ orderReference: 'held' });
      expect((await allocationOf('held')).lines[0]).to.deep.include({ unallocated: 0 });
      await h.client.reserve({ orderReference: 'held-2', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 });
      await h.staffClient.recallBatch({ number: 'LATE', note: '' }, asOwner);
      await h.client.commit({ orderReference: 'held-2' });
      expect((await allocationOf('held-2')).lines[0]).to.deep.include({ batches: [], unallocated: 1 });
      await receive({ number: 'NEW', units: 2, retestOn: '2026-12-31' });
      const { allocation } = await h.staffClient.moveOrderAllocation(
        { orderReference: 'held-2', sku: 'beta-1mg', toBatch: 'NEW', fromBatch: '' },
        asStaff,
      );
      expect(allocation!.lines[0]).to.deep.include({
        batches: [{ number: 'NEW', units: 1, returned: 0 }],
        unallocated: 0,
      });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 1, reserved: 0 });
    });

    it('refuses a batch short of units, of another size, off sale, an unknown or unpaid order; no change', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 4);
      await receive({ number: 'SMALL', units: 1, retestOn: '2026-12-31' });
      await receive({ number: 'ALPHA', sku: 'alpha-5mg', units: 9 });
      await receive({ number: 'QUARANTINED', units: 9 });
      await h.staffClient.quarantineBatch({ number: 'QUARANTINED', note: '' }, asOwner);
      await h.client.reserve({ orderReference: 'unpaid', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 });
      const before = { batches: await h.batchUnits('beta-1mg'), allocation: await allocationOf('order-1') };
      const move = (toBatch: string, orderReference = 'order-1') =>
        rejection(
          h.staffClient.moveOrderAllocation({ orderReference, sku: 'beta-1mg', toBatch, fromBatch: '' }, asStaff),
        );
      expect(await move('SMALL')).to.include({ kind: 'conflict', code: 'batch_short' });
      expect(await move('ALPHA')).to.include({ kind: 'invalid_argument', code: 'batch_of_another_size' });
      expect(await move('QUARANTINED')).to.include({ kind: 'conflict', code: 'batch_not_sellable' });
      expect(await move('NOWHERE')).to.include({ kind: 'not_found', code: 'batch_not_found' });
      expect(await move('not a batch')).to.include({ kind: 'invalid_argument', code: 'invalid_batch_number' });
      expect(await move('LATE', 'unpaid')).to.include({ kind: 'conflict', code: 'order_not_sold' });
      expect(await move('LATE', 'nobody')).to.include({ kind: 'not_found', code: 'reservation_not_found' });
      expect({ batches: await h.batchUnits('beta-1mg'), allocation: await allocationOf('order-1') }).to.deep.equal(
        before,
      );
      expect((await listStaffActions(h.server.store.db, { action: 'order_batch_changed' })).actions).to.deep.equal([]);
    });

    it('moves one batch’s units onto a batch the line already took from', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 4);
      await h.staffClient.moveOrderAllocation(
        { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'LATE', fromBatch: 'EARLY' },
        asStaff,
      );
      expect((await allocationOf('order-1')).lines[0]!.batches).to.deep.equal([
        { number: 'LATE', units: 4, returned: 0 },
      ]);
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ EARLY: 3, LATE: 1, 'LEGACY-BETA-1MG': 0 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 4, reserved: 0 });
    });

    it('refuses a move taking units open orders hold, or from a batch the line took nothing from', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 3);
      await h.staffClient.recallBatch({ number: 'EARLY', note: '' }, asOwner);
      await h.client.reserve({ orderReference: 'others', lines: [{ sku: 'beta-1mg', quantity: 5 }], ttlSeconds: 0 });
      const before = { batches: await h.batchUnits('beta-1mg'), stock: await h.stockOf('beta-1mg') };
      // The line's units are on a recalled batch: packing them from LATE takes LATE's units off sale.
      const held = await rejection(
        h.staffClient.moveOrderAllocation(
          { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'LATE', fromBatch: '' },
          asStaff,
        ),
      );
      expect(held).to.include({ kind: 'conflict', code: 'stock_held' });
      const nothingFrom = await rejection(
        h.staffClient.moveOrderAllocation(
          { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'EARLY', fromBatch: 'LATE' },
          asStaff,
        ),
      );
      expect(nothingFrom).to.include({ code: 'batch_not_sellable' });
      await receive({ number: 'THIRD', units: 9 });
      expect(
        await rejection(
          h.staffClient.moveOrderAllocation(
            { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'THIRD', fromBatch: 'LATE' },
            asStaff,
          ),
        ),
      ).to.include({ kind: 'not_found', code: 'allocation_not_found' });
      expect({ batches: await h.batchUnits('beta-1mg'), stock: await h.stockOf('beta-1mg') }).to.deep.equal({
        batches: { ...before.batches, THIRD: 9 },
        stock: { ...before.stock, onHand: before.stock.onHand + 9 },
      });
    });

    it('freezes the allocation once checkout marks the order shipped, which it may say again', async () => {
      await twoBatches();
      await sell('order-1', 'beta-1mg', 1);
      expect(await rejection(h.client.markOrderShipped({ orderReference: 'nobody' }))).to.include({
        code: 'reservation_not_found',
      });
      h.clock.advance(5000);
      const shipped = await h.client.markOrderShipped({ orderReference: 'order-1' });
      expect(shipped.allocation!.shippedAt).to.equal(new Date(h.clock.ms).toISOString());
      h.clock.advance(5000);
      expect(await h.client.markOrderShipped({ orderReference: 'order-1' })).to.deep.equal(shipped);
      const refused = await rejection(
        h.staffClient.moveOrderAllocation(
          { orderReference: 'order-1', sku: 'beta-1mg', toBatch: 'LATE', fromBatch: '' },
          asStaff,
        ),
      );
      expect(refused).to.include({ kind: 'conflict', code: 'order_shipped' });
      expect((await allocationOf('order-1')).lines[0]!.batches).to.deep.equal([
        { number: 'EARLY', units: 1, returned: 0 },
      ]);
      // A refund after shipping still puts the units back where they came from.
      await h.client.returnStock({
        returnId: 'refund-1',
        orderReference: 'order-1',
        lines: [{ sku: 'beta-1mg', quantity: 1 }],
      });
      expect(await h.batchUnits('beta-1mg')).to.include({ EARLY: 3 });
    });
  });

  describe('recalls', () => {
    it('list every order a batch went to, oldest sale first, a page at a time', async () => {
      await twoBatches();
      for (const [i, quantity] of [1, 1, 2].entries()) {
        h.clock.advance(1000);
        await sell(`order-${i}`, 'beta-1mg', quantity);
      }
      const first = await h.staffClient.listBatchOrders(
        { number: 'early', limit: 2, afterSoldAt: '', afterOrderReference: '' },
        asStaff,
      );
      expect(first.more).to.equal(true);
      expect(first.orders.map((order) => [order.orderReference, order.units])).to.deep.equal([
        ['order-0', 1],
        ['order-1', 1],
      ]);
      const last = first.orders.at(-1)!;
      const next = await h.staffClient.listBatchOrders(
        { number: 'EARLY', limit: 2, afterSoldAt: last.soldAt, afterOrderReference: last.orderReference },
        asStaff,
      );
      expect(next).to.deep.equal({
        orders: [{ orderReference: 'order-2', soldAt: new Date(h.clock.ms).toISOString(), units: 1, returned: 0 }],
        more: false,
      });
      expect(
        (
          await h.staffClient.listBatchOrders(
            { number: 'LATE', limit: 0, afterSoldAt: '', afterOrderReference: '' },
            asStaff,
          )
        ).orders,
      ).to.have.length(1);
      const page = (number: string, afterSoldAt: string, afterOrderReference: string) =>
        rejection(h.staffClient.listBatchOrders({ number, limit: 0, afterSoldAt, afterOrderReference }, asStaff));
      expect(await page('EARLY', 'yesterday', 'order-1')).to.include({ kind: 'invalid_argument' });
      expect(await page('EARLY', '', 'order-1')).to.include({ kind: 'invalid_argument' });
      expect(await page('NOWHERE', '', '')).to.include({ code: 'batch_not_found' });
    });
  });

  describe('under concurrency', () => {
    // Fifty buyers ask for 1 or 2 units each (75 in all) of a size with 45 units in two batches.
    it('fifty buyers at once, busy cores: first expiry first, no batch below 0, units sold = allocated', async () => {
      await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 0, note: '' }, asOwner);
      await receive({ number: 'LATE', units: 25, retestOn: '2026-12-31' });
      await receive({ number: 'EARLY', units: 20, retestOn: '2026-06-30' });
      const outcomes = await withBusyCores(() =>
        Promise.allSettled(
          Array.from({ length: 50 }, async (_, i) => {
            const orderReference = `buyer-${i}`;
            await h.client.reserve({
              orderReference,
              lines: [{ sku: 'beta-1mg', quantity: 1 + (i % 2) }],
              ttlSeconds: 0,
            });
            return h.client.commit({ orderReference });
          }),
        ),
      );
      expectNoServerFailures(outcomes);
      const refusals = outcomes
        .filter((outcome) => outcome.status === 'rejected')
        .map((outcome) => ((outcome as PromiseRejectedResult).reason as AppError).code);
      expect(refusals.filter((code) => code !== 'out_of_stock' && code !== 'service_unavailable')).to.deep.equal([]);

      const { db } = h.server.store;
      const sold = await db('reservation_lines as l')
        .join('reservations as r', 'r.order_reference', 'l.order_reference')
        .where('r.status', 'committed')
        .sum({ units: 'l.quantity' })
        .first();
      const allocated = await db('batch_allocations').sum({ units: 'units' }).first();
      const batches = await h.batchUnits('beta-1mg');
      const unitsSold = Number(sold?.units ?? 0);
      expect(unitsSold).to.be.within(30, 45);
      expect(Number(allocated?.units ?? 0)).to.equal(unitsSold);
      expect(batches['EARLY']).to.equal(0);
      expect(batches['LATE']).to.equal(45 - unitsSold);
      expect(Object.values(batches).every((units) => units >= 0)).to.equal(true);
      // First expiry first, sale by sale: LATE gave units only once EARLY had none left, so at most
      // one order (the one that emptied EARLY) took units from both.
      const rows: Array<{ order_reference: string; batch_number: string }> = await db('batch_allocations').select(
        'order_reference',
        'batch_number',
      );
      const batchesOf = new Map<string, string[]>();
      for (const row of rows)
        batchesOf.set(row.order_reference, [...(batchesOf.get(row.order_reference) ?? []), row.batch_number]);
      expect([...batchesOf.values()].filter((numbers) => numbers.length > 1).length).to.be.at.most(1);
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 45 - unitsSold, reserved: await heldUnits() });
    });

    async function heldUnits(): Promise<number> {
      const row = await h.server.store
        .db('reservation_lines as l')
        .join('reservations as r', 'r.order_reference', 'l.order_reference')
        .where('r.status', 'active')
        .sum({ units: 'l.quantity' })
        .first();
      return Number(row?.units ?? 0);
    }
  });
});
