/** The pages' read of held stock (decision 1140): one read per interval, shared, kept when checkout fails. */
import { expect } from 'chai';
import { createLogger } from '@storefront/logging';
import type { checkout } from '@storefront/proto';
import { heldStockReader, heldWords, yieldableUnits } from '../../src/application/held-stock';

const HELD: checkout.GetHeldStockResponse = {
  held: [{ sku: 'alpha-5mg', heldUnits: 3, nextYieldAt: '2026-07-01T13:04:30.000Z', paidWaitingUnits: 1 }],
};

/** GetHeldStock as a test sets it: an answer or an Error, counting the calls. */
function fakeCheckout() {
  const source = {
    answer: HELD as checkout.GetHeldStockResponse | Error,
    calls: 0,
    read: async () => {
      source.calls += 1;
      await new Promise((resolve) => setImmediate(resolve));
      if (source.answer instanceof Error) throw source.answer;
      return source.answer;
    },
  };
  return source;
}

const logger = createLogger('held-stock-test', 'silent');

describe('gateway: the read of held stock', () => {
  it('reads once for the requests that arrive together and serves the read for the interval', async () => {
    const source = fakeCheckout();
    const read = heldStockReader(source.read, 60_000, logger);
    const [first, second] = await Promise.all([read(), read()]);
    expect(source.calls).to.equal(1);
    expect(first).to.equal(second);
    expect(first.get('alpha-5mg')).to.deep.equal({
      held: 3,
      backAt: Date.parse('2026-07-01T13:04:30.000Z'),
      paidWaiting: 1,
    });
    await read();
    expect(source.calls).to.equal(1);
  });

  it('reads again once the interval is over, and keeps the last read while checkout fails', async () => {
    const source = fakeCheckout();
    const read = heldStockReader(source.read, 0, logger);
    const before = await read();
    source.answer = new Error('checkout is down');
    expect(await read()).to.equal(before);
    expect(source.calls).to.equal(2);
    source.answer = { held: [] };
    expect((await read()).size).to.equal(0);
  });

  it("says what is held and when it is back (London time); new orders may take only what paid ones don't await", () => {
    const units = { held: 3, backAt: Date.parse('2026-07-01T13:04:30.000Z'), paidWaiting: 1 };
    expect(heldWords(units, units.backAt - 1)).to.equal(
      '1 held for a buyer who has paid; 3 held in other baskets, back by 14:05',
    );
    expect(heldWords({ ...units, paidWaiting: 0 }, units.backAt + 1)).to.equal(
      '3 held in other baskets, which an order can take now',
    );
    expect(heldWords(undefined, 0)).to.equal(undefined);
    expect(yieldableUnits(new Map([['alpha-5mg', units]]), 'alpha-5mg')).to.equal(2);
    expect(yieldableUnits(new Map(), 'alpha-5mg')).to.equal(0);
  });
});
