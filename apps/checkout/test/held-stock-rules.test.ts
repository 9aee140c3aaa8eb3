/**
 * The rules of held stock (decision 1082) on their own: which yielding holds an order short of
 * units takes, what a refusal says, and when it may wait instead. The same on either backend: no
 * store is involved.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { londonClock } from '@storefront/dispatch-calendar';
import {
  chooseYieldingHolds,
  heldRefusal,
  parseHeldStockSkus,
  type HeldStockFacts,
  type StockTaker,
} from '../src/domain/held-stock';

const FIRM_MS = 5 * 60 * 1000;
// 14:00:00 London time (BST) on 1 July 2026.
const NOW = Date.parse('2026-07-01T13:00:00Z');
const SKU = 'bpc-157-10mg';

const newOrder = (quantity: number, extra: Partial<StockTaker> = {}): StockTaker => ({
  orderId: 'new',
  lines: [{ sku: SKU, quantity }],
  paid: false,
  ...extra,
});
const onHand = (units: number) => new Map([[SKU, units]]);
const yielding = (orderId: string, units: number, minutesAgo: number) => ({
  orderId,
  sku: SKU,
  units,
  createdAt: NOW - minutesAgo * 60_000,
});
const refuse = () => new AppError('conflict', 'out_of_stock', 'refused');

describe('held stock rules: which yielding holds a short order takes', () => {
  const facts: HeldStockFacts = {
    holds: [{ sku: SKU, heldUnits: 12, firmUnits: 3, firstFirmAt: NOW - 60_000, owedUnits: 0 }],
    yielding: [yielding('oldest', 6, 9), yielding('middle', 2, 7), yielding('newest', 1, 6)],
  };

  it('takes the oldest holds until the shortfall is covered, and no more', () => {
    expect(chooseYieldingHolds(newOrder(1), onHand(12), facts, refuse)).to.deep.equal(['oldest']);
    expect(chooseYieldingHolds(newOrder(7), onHand(12), facts, refuse)).to.deep.equal(['oldest', 'middle']);
    // Units free already count first: 2 free, so 7 more needed of the holds.
    expect(chooseYieldingHolds(newOrder(9), onHand(14), facts, refuse)).to.deep.equal(['oldest', 'middle']);
  });

  it('takes nothing when the yielding holds cannot cover the shortfall', () => {
    expect(chooseYieldingHolds(newOrder(10), onHand(12), facts, refuse)).to.deep.equal([]);
  });

  it('refuses a new order while a paid order waits for the SKU, and serves the paid one', () => {
    const owed: HeldStockFacts = { ...facts, holds: [{ ...facts.holds[0]!, owedUnits: 1 }] };
    expect(() => chooseYieldingHolds(newOrder(1), onHand(13), owed, refuse)).to.throw(AppError, 'refused');
    expect(chooseYieldingHolds(newOrder(1, { paid: true }), onHand(13), owed, refuse)).to.deep.equal(['oldest']);
  });

  it("checks the holder's share of a take with the units firm holds hold", () => {
    const firmUnits: number[] = [];
    chooseYieldingHolds(newOrder(1, { checkTakeShare: (_, firm) => firmUnits.push(firm) }), onHand(12), facts, refuse);
    expect(firmUnits).to.deep.equal([3]);
  });
});

describe('held stock rules: what a refusal says', () => {
  it('names the units unpaid orders hold and when the first is back, in London time', () => {
    const facts: HeldStockFacts = {
      holds: [{ sku: SKU, heldUnits: 3, firmUnits: 3, firstFirmAt: NOW, owedUnits: 0 }],
      yielding: [],
    };
    const refusal = heldRefusal(newOrder(1), onHand(3), facts, FIRM_MS, NOW)!;
    expect(refusal).to.include({ code: 'out_of_stock', kind: 'conflict', waitable: true, backAt: NOW + FIRM_MS });
    expect(refusal.detail).to.equal(`Not enough stock now: 3 of ${SKU} are held in other baskets, back by 14:05`);
    expect(refusal.retryAfterSeconds).to.equal(300);
  });

  it('says so when a paid order is owed the units, and a new order may still wait for what unpaid holds have', () => {
    const facts: HeldStockFacts = {
      holds: [{ sku: SKU, heldUnits: 2, firmUnits: 2, firstFirmAt: NOW, owedUnits: 1 }],
      yielding: [],
    };
    const refusal = heldRefusal(newOrder(1), onHand(3), facts, FIRM_MS, NOW)!;
    expect(refusal.detail).to.equal(
      `Not enough stock now: 1 of ${SKU} is held for a buyer who has paid; ` +
        `2 of ${SKU} are held in other baskets, back by 14:05`,
    );
    expect(refusal.waitable).to.equal(true);
    expect(heldRefusal(newOrder(2), onHand(3), facts, FIRM_MS, NOW)!.waitable).to.equal(false);
  });

  it('lets a paid order wait while any unpaid hold is left, and not once the stock is gone', () => {
    const facts: HeldStockFacts = {
      holds: [{ sku: SKU, heldUnits: 1, firmUnits: 1, firstFirmAt: NOW, owedUnits: 4 }],
      yielding: [],
    };
    expect(heldRefusal(newOrder(1, { paid: true }), onHand(5), facts, FIRM_MS, NOW)!.waitable).to.equal(true);
    const noneUnpaid: HeldStockFacts = { holds: [{ ...facts.holds[0]!, heldUnits: 0, firmUnits: 0 }], yielding: [] };
    expect(heldRefusal(newOrder(1, { paid: true }), onHand(4), noneUnpaid, FIRM_MS, NOW)!.waitable).to.equal(false);
  });

  it('is no refusal of its own when nothing holds the units: inventory says out of stock', () => {
    expect(heldRefusal(newOrder(1), onHand(0), { holds: [], yielding: [] }, FIRM_MS, NOW)).to.equal(undefined);
  });

  it('rounds "back by" up to the minute, in summer and in winter time', () => {
    expect(londonClock(Date.parse('2026-07-01T13:04:30Z'))).to.equal('14:05');
    expect(londonClock(Date.parse('2026-01-15T14:04:00Z'))).to.equal('14:04');
  });
});

describe('held stock rules: the SKUs a read names', () => {
  it('takes each SKU once, and refuses a blank, an over-long one, or too many, naming them', () => {
    expect(parseHeldStockSkus(['a', 'b', 'a'])).to.deep.equal(['a', 'b']);
    expect(parseHeldStockSkus([])).to.deep.equal([]);
    expect(() => parseHeldStockSkus(['a', ''])).to.throw(AppError, 'skus[1]');
    expect(() => parseHeldStockSkus(['x'.repeat(101)])).to.throw(AppError, 'skus[0]');
    expect(() => parseHeldStockSkus(Array.from({ length: 101 }, (_, index) => `sku-${index}`))).to.throw(
      AppError,
      'at most 100',
    );
  });
});
