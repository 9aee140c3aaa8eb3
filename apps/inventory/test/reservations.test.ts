import { expect } from 'chai';
import { createLogger } from '@storefront/logging';
import { ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { AppError } from '@storefront/errors';
import { startSweeper } from '../src/domain/sweeper';
import { normalizeLines } from '../src/domain/lines';
import { startInventory, type InventoryHarness } from './harness';
import { expectNoServerFailures, rejection, startForEachTest, withBusyCores } from '@storefront/testing';

describe('inventory: reservations', () => {
  let h: InventoryHarness;
  startForEachTest(startInventory, (started) => (h = started));

  const countByStatus = async (status: string) => {
    const row = await h.server.store.db('reservations').where({ status }).count({ n: '*' }).first();
    return Number(row?.n);
  };

  describe('never oversells', () => {
    // More calls on busy cores wait on the stock row past the RPC deadline (504) on MySQL: the
    // calls after the 50th are there to be refused, ten of them are enough.
    it('60 parallel single-unit reservations on busy cores for 50 units: exactly 50 active, none left', async () => {
      const outcomes = await withBusyCores(() =>
        Promise.allSettled(
          Array.from({ length: 60 }, (_, i) =>
            h.client.reserve({
              orderReference: `order-${i}`,
              lines: [{ sku: 'alpha-5mg', quantity: 1 }],
              ttlSeconds: 0,
            }),
          ),
        ),
      );
      expectNoServerFailures(outcomes);
      const refused = outcomes
        .filter((o) => o.status === 'rejected')
        .map((o) => (o as PromiseRejectedResult).reason as AppError);
      const busy = refused.filter((error) => error.code === 'service_unavailable').length;
      const refusedOtherwise = refused.filter(
        (error) => error.code !== 'out_of_stock' && error.code !== 'service_unavailable',
      );
      expect(refusedOtherwise.map(String)).to.deep.equal([]);
      // On busy cores a call may wait past the pool's limit and answer the busy store's 503, whether
      // or not its reservation was saved (a retry of its reference answers it). Out of stock is
      // only said once every unit is held, and no more than the units are ever held.
      expect(outcomes.length - refused.length).to.be.within(50 - busy, 50);
      expect(refused.length - busy).to.be.above(0);
      expect(await countByStatus('active')).to.equal(50);
      expect(await h.stockOf('alpha-5mg')).to.deep.equal({ onHand: 50, reserved: 50 });
      expect((await h.gateway.getStock({})).available['alpha-5mg']).to.equal(0);
    });

    it("survives many orders' reserves and releases interleaving on one SKU, without errors or leaks", async () => {
      // 32 workers each reserve and release their own orders on the same SKUs at once: every
      // unit taken must come back, and no interleaving may surface as an error. Five rounds each
      // keep the test within a few seconds on busy cores.
      const errors: unknown[] = [];
      await withBusyCores(() =>
        Promise.all(
          Array.from({ length: 32 }, async (_, worker) => {
            for (let round = 0; round < 5; round += 1) {
              const orderReference = `churn-${worker}-${round}`;
              try {
                await h.client.reserve({
                  orderReference,
                  lines: [
                    { sku: 'alpha-5mg', quantity: 1 },
                    { sku: 'beta-1mg', quantity: 1 },
                  ],
                  ttlSeconds: 0,
                });
                await h.client.release({ orderReference });
              } catch (error) {
                if ((error as { code?: string }).code !== 'out_of_stock') errors.push(error);
              }
            }
          }),
        ),
      );
      expect(errors).to.deep.equal([]);
      expect(await h.stockOf('alpha-5mg')).to.deep.equal({ onHand: 50, reserved: 0 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
      expect(await countByStatus('active')).to.equal(0);
    });

    it('reserves every line of a mixed order or none: one short line leaves all stock untouched', async () => {
      const error = await rejection(
        h.client.reserve({
          orderReference: 'mixed',
          lines: [
            { sku: 'alpha-5mg', quantity: 2 },
            { sku: 'alpha-20mg', quantity: 5 },
            { sku: 'alpha-10mg', quantity: 4 },
            { sku: 'beta-1mg', quantity: 1 },
          ],
          ttlSeconds: 0,
        }),
      );
      expect(error).to.include({ kind: 'conflict', code: 'out_of_stock' });
      expect(error.detail)
        .to.include('alpha-10mg (3 available)')
        .and.not.include('alpha-5mg')
        .and.not.include('beta-1mg');
      expect(await h.stockOf('alpha-5mg')).to.deep.equal({ onHand: 50, reserved: 0 });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
      expect(await h.server.reservations.find('mixed')).to.equal(undefined);
      // Nothing half-written: the same reference can be used for a smaller order.
      const { reservation } = await h.client.reserve({
        orderReference: 'mixed',
        lines: [{ sku: 'alpha-10mg', quantity: 3 }],
        ttlSeconds: 0,
      });
      expect(reservation?.status).to.equal('active');
    });

    it('sums a SKU listed on two lines before checking stock', async () => {
      const error = await rejection(
        h.client.reserve({
          orderReference: 'twice',
          lines: [
            { sku: 'alpha-10mg', quantity: 2 },
            { sku: 'alpha-10mg', quantity: 2 },
          ],
          ttlSeconds: 0,
        }),
      );
      expect(error.code).to.equal('out_of_stock');
      const { reservation } = await h.client.reserve({
        orderReference: 'twice-ok',
        lines: [
          { sku: 'alpha-10mg', quantity: 1 },
          { sku: 'alpha-10mg', quantity: 2 },
        ],
        ttlSeconds: 0,
      });
      expect(reservation?.lines).to.deep.equal([{ sku: 'alpha-10mg', quantity: 3 }]);
      expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 3, reserved: 3 });
    });

    it('holds no stock row for SKUs that are not stock-limited', async () => {
      const { reservation } = await h.client.reserve({
        orderReference: 'free',
        lines: [{ sku: 'alpha-20mg', quantity: 99 }],
        ttlSeconds: 0,
      });
      expect(reservation?.status).to.equal('active');
      expect(await h.server.store.db('stock').where({ sku: 'alpha-20mg' }).first()).to.equal(undefined);
    });

    it('has database constraints that keep stock and batch units from going negative', async () => {
      const refused = (write: Promise<unknown>) =>
        write.then(
          () => false,
          () => true,
        );
      const { db } = h.server.store;
      expect(await refused(db('stock').where({ sku: 'alpha-10mg' }).update({ on_hand: -1 }))).to.equal(true);
      expect(await refused(db('stock').where({ sku: 'alpha-10mg' }).update({ reserved: -1 }))).to.equal(true);
      expect(await refused(db('batches').where({ sku: 'alpha-10mg' }).update({ units: -1 }))).to.equal(true);
      expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 3, reserved: 0 });
    });
  });

  describe('idempotency per order reference', () => {
    it('returns the existing reservation for a repeat and holds the units once', async () => {
      const first = await h.client.reserve({
        orderReference: 'again',
        lines: [{ sku: 'beta-1mg', quantity: 2 }],
        ttlSeconds: 0,
      });
      h.clock.advance(60_000);
      const second = await h.client.reserve({
        orderReference: 'again',
        lines: [{ sku: 'beta-1mg', quantity: 2 }],
        ttlSeconds: 0,
      });
      expect(second).to.deep.equal(first);
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 2 });
    });

    it('holds the units once when the same reference arrives many times at once', async () => {
      const results = await withBusyCores(() =>
        Promise.all(
          Array.from({ length: 20 }, () =>
            h.client.reserve({ orderReference: 'burst', lines: [{ sku: 'beta-1mg', quantity: 3 }], ttlSeconds: 0 }),
          ),
        ),
      );
      expect(new Set(results.map((r) => r.reservation?.expiresAt)).size).to.equal(1);
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 3 });
    });

    it('refuses a repeat that asks for different lines', async () => {
      await h.client.reserve({ orderReference: 'changed', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 });
      const error = await rejection(
        h.client.reserve({ orderReference: 'changed', lines: [{ sku: 'beta-1mg', quantity: 2 }], ttlSeconds: 0 }),
      );
      expect(error).to.include({ kind: 'conflict', code: 'reservation_mismatch' });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 1 });
    });

    it('treats the same lines in another order as the same request', async () => {
      const lines = [
        { sku: 'beta-1mg', quantity: 1 },
        { sku: 'alpha-5mg', quantity: 2 },
      ];
      await h.client.reserve({ orderReference: 'order', lines, ttlSeconds: 0 });
      const { reservation } = await h.client.reserve({
        orderReference: 'order',
        lines: [...lines].reverse(),
        ttlSeconds: 0,
      });
      expect(reservation?.lines).to.deep.equal(lines);
    });
  });

  describe('commit and release', () => {
    const reserve = (orderReference: string, quantity = 2) =>
      h.client.reserve({
        orderReference,
        lines: [
          { sku: 'beta-1mg', quantity },
          { sku: 'alpha-20mg', quantity: 1 },
        ],
        ttlSeconds: 0,
      });

    it('commit takes the units off the shelf once, however often it is called', async () => {
      await reserve('paid');
      const first = await h.client.commit({ orderReference: 'paid' });
      const second = await h.client.commit({ orderReference: 'paid' });
      expect(first.reservation?.status).to.equal('committed');
      expect(second).to.deep.equal(first);
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 8, reserved: 0 });
    });

    it('release gives the units back once, however often it is called', async () => {
      await reserve('abandoned');
      await h.client.release({ orderReference: 'abandoned' });
      const again = await h.client.release({ orderReference: 'abandoned' });
      expect(again.reservation?.status).to.equal('released');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
      expect((await h.gateway.getStock({})).available['beta-1mg']).to.equal(10);
    });

    it('parallel releases of one reservation restore its units once', async () => {
      await reserve('racing', 4);
      await withBusyCores(() =>
        Promise.all(Array.from({ length: 10 }, () => h.client.release({ orderReference: 'racing' }))),
      );
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
    });

    it('release after commit changes nothing: the sale stands', async () => {
      await reserve('sold');
      await h.client.commit({ orderReference: 'sold' });
      const { reservation } = await h.client.release({ orderReference: 'sold' });
      expect(reservation?.status).to.equal('committed');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 8, reserved: 0 });
    });

    it('commit after release takes the units again when they are still free', async () => {
      await reserve('late-payment');
      await h.client.release({ orderReference: 'late-payment' });
      const { reservation } = await h.client.commit({ orderReference: 'late-payment' });
      expect(reservation?.status).to.equal('committed');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 8, reserved: 0 });
    });

    it('commit after release is out of stock when the units went to someone else', async () => {
      await reserve('too-late', 2);
      await h.client.release({ orderReference: 'too-late' });
      await h.client.reserve({ orderReference: 'other', lines: [{ sku: 'beta-1mg', quantity: 9 }], ttlSeconds: 0 });
      const error = await rejection(h.client.commit({ orderReference: 'too-late' }));
      expect(error).to.include({ kind: 'conflict', code: 'out_of_stock' });
      expect(error.detail).to.include('beta-1mg (1 available)');
      expect((await h.server.reservations.find('too-late'))?.status).to.equal('released');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 9 });
    });

    it('answers not found for an unknown order reference', async () => {
      expect(await rejection(h.client.commit({ orderReference: 'nobody' }))).to.include({
        kind: 'not_found',
        code: 'reservation_not_found',
      });
      expect(await rejection(h.client.release({ orderReference: 'nobody' }))).to.include({
        kind: 'not_found',
        code: 'reservation_not_found',
      });
    });
  });

  describe('expiry', () => {
    it('expires after the configured default of 30 minutes, or the ttl asked for', async () => {
      const standard = await h.client.reserve({
        orderReference: 'default-ttl',
        lines: [{ sku: 'beta-1mg', quantity: 1 }],
        ttlSeconds: 0,
      });
      const short = await h.client.reserve({
        orderReference: 'short-ttl',
        lines: [{ sku: 'beta-1mg', quantity: 1 }],
        ttlSeconds: 90,
      });
      expect(Date.parse(standard.reservation!.expiresAt)).to.equal(h.clock.ms + 30 * 60_000);
      expect(Date.parse(short.reservation!.expiresAt)).to.equal(h.clock.ms + 90_000);
    });

    it('releases expired reservations and leaves live and committed ones alone', async () => {
      await h.client.reserve({ orderReference: 'lapsing', lines: [{ sku: 'beta-1mg', quantity: 2 }], ttlSeconds: 60 });
      await h.client.reserve({ orderReference: 'paid', lines: [{ sku: 'beta-1mg', quantity: 3 }], ttlSeconds: 60 });
      await h.client.commit({ orderReference: 'paid' });
      await h.client.reserve({ orderReference: 'live', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 600 });
      h.clock.advance(59_000);
      expect(await h.server.reservations.releaseExpired()).to.equal(0);
      h.clock.advance(1_000);
      expect(await h.server.reservations.releaseExpired()).to.equal(1);
      expect(await h.server.reservations.releaseExpired()).to.equal(0);
      expect((await h.server.reservations.find('lapsing'))?.status).to.equal('released');
      expect((await h.server.reservations.find('paid'))?.status).to.equal('committed');
      expect((await h.server.reservations.find('live'))?.status).to.equal('active');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 7, reserved: 1 });
    });

    it('an expired reservation the sweeper has not reached yet does not block a new order', async () => {
      await h.client.reserve({
        orderReference: 'hoarder',
        lines: [{ sku: 'alpha-10mg', quantity: 3 }],
        ttlSeconds: 60,
      });
      expect(
        (
          await rejection(
            h.client.reserve({ orderReference: 'early', lines: [{ sku: 'alpha-10mg', quantity: 1 }], ttlSeconds: 0 }),
          )
        ).code,
      ).to.equal('out_of_stock');
      h.clock.advance(61_000);
      const { reservation } = await h.client.reserve({
        orderReference: 'buyer',
        lines: [{ sku: 'alpha-10mg', quantity: 2 }],
        ttlSeconds: 0,
      });
      expect(reservation?.status).to.equal('active');
      expect((await h.server.reservations.find('hoarder'))?.status).to.equal('released');
      expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 3, reserved: 2 });
    });

    it('the sweeper releases expired reservations on its own timer', async () => {
      await h.client.reserve({
        orderReference: 'forgotten',
        lines: [{ sku: 'beta-1mg', quantity: 4 }],
        ttlSeconds: 60,
      });
      const sweeper = startSweeper(h.server.reservations, 20, createLogger('test', 'silent'));
      try {
        h.clock.advance(61_000);
        const deadline = Date.now() + 5_000;
        while ((await h.server.reservations.find('forgotten'))?.status === 'active' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await sweeper.stop();
      }
      expect((await h.server.reservations.find('forgotten'))?.status).to.equal('released');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
    });
  });

  describe('bad input reserves nothing', () => {
    const cases: Array<[string, Parameters<InventoryHarness['client']['reserve']>[0], string]> = [
      ['an empty line list', { orderReference: 'r', lines: [], ttlSeconds: 0 }, 'lines must list at least one SKU'],
      [
        'a zero quantity',
        { orderReference: 'r', lines: [{ sku: 'beta-1mg', quantity: 0 }], ttlSeconds: 0 },
        'lines[0].quantity',
      ],
      [
        'a negative quantity',
        { orderReference: 'r', lines: [{ sku: 'beta-1mg', quantity: -2 }], ttlSeconds: 0 },
        'lines[0].quantity',
      ],
      [
        'a quantity over 99',
        {
          orderReference: 'r',
          lines: [
            { sku: 'alpha-5mg', quantity: 1 },
            { sku: 'beta-1mg', quantity: 100 },
          ],
          ttlSeconds: 0,
        },
        'lines[1].quantity',
      ],
      [
        'an unknown SKU',
        {
          orderReference: 'r',
          lines: [
            { sku: 'beta-1mg', quantity: 1 },
            { sku: 'gamma-1mg', quantity: 1 },
          ],
          ttlSeconds: 0,
        },
        'gamma-1mg',
      ],
      ['an empty SKU', { orderReference: 'r', lines: [{ sku: '', quantity: 1 }], ttlSeconds: 0 }, 'lines[0].sku'],
      [
        'an empty order reference',
        { orderReference: '', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 },
        'order_reference',
      ],
      [
        'an overlong order reference',
        {
          orderReference: 'x'.repeat(ORDER_REFERENCE_MAX_LENGTH + 1),
          lines: [{ sku: 'beta-1mg', quantity: 1 }],
          ttlSeconds: 0,
        },
        'order_reference',
      ],
      [
        'a negative ttl',
        { orderReference: 'r', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: -5 },
        'ttl_seconds',
      ],
    ];
    for (const [what, request, named] of cases) {
      it(`answers invalid_argument for ${what}`, async () => {
        const error = await rejection(h.client.reserve(request));
        expect(error.kind).to.equal('invalid_argument');
        expect(error.detail).to.include(named);
        expect(await h.server.store.db('reservations').count({ n: '*' }).first()).to.satisfy(
          (row: { n: unknown }) => Number(row.n) === 0,
        );
        expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
      });
    }

    it('rejects a non-integer quantity before it reaches the store', async () => {
      // gRPC's int32 cannot carry 1.5; the rule still guards direct callers of the domain.
      expect(() => normalizeLines([{ sku: 'beta-1mg', quantity: 1.5 }])).to.throw(
        /lines\[0\]\.quantity must be an integer/,
      );
    });
  });
});
