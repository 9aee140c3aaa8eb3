/**
 * How many SQL statements, and how many round trips to the server, one new one-line order costs
 * through create-checkout (guest, sandbox provider; a stock-limited size, and one without a stock
 * limit as the benchmark orders), counted on checkout's and inventory's stores together, with
 * BEGIN and COMMIT counted like any other statement. Statements a batched transaction sends
 * together are one round trip. Prints the statements by round trip, so a change that adds one
 * shows where.
 */
import { expect } from 'chai';
import { startForSuite } from '@storefront/testing';
import type { BatchedQueryEvent, Knex } from '@storefront/db';
import type { Stack } from '@storefront/platform-testing';
import { SOLD_OUT_MEMORY_MS } from '../src/domain/sold-out-board';
import {
  LOW_STOCK,
  checkoutBody,
  createCheckout,
  expectCheckout,
  newClientAddress,
  sku,
  startCheckoutStack,
} from './support';

/**
 * Each order counted, with the most statements and round trips allowed per backend (the
 * abuse-limit counters live outside both stores). Round trips: the order's reference, inventory's
 * quote, checkout's transaction (locks and counts, then the order with COMMIT), inventory's hold
 * (the stock read or the writes, then COMMIT or the writes with it), the provider checkout's write. The order's number
 * costs one statement in checkout's commit (decision 1285).
 */
const ORDERS = [
  // tb-500-10mg: £49.99 and stock-limited; a guarded stock UPDATE, and no read once inventory knows the size holds
  // stock.
  {
    kind: 'a stock-limited size',
    body: () => checkoutBody(54.94, [{ sku: 'tb-500-10mg', quantity: 1 }]),
    budget: { statements: { sqlite: 14, mysql: 15 }, roundTrips: 7 },
  },
  // ghk-cu-50mg: £19.99 without a stock limit; inventory reads the size to know it holds none.
  {
    kind: 'a size without a stock limit',
    body: () => checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]),
    budget: { statements: { sqlite: 14, mysql: 15 }, roundTrips: 7 },
  },
] as const;

interface Counted {
  component: string;
  sql: string;
  /** Statements of one batched send share it; any other statement is a round trip of its own. */
  roundTrip: string;
}

function countStatements(stores: Record<string, Knex>): { stop: () => Counted[] } {
  const counted: Counted[] = [];
  const listeners = Object.entries(stores).map(([component, db]) => {
    const listener = (query: Partial<BatchedQueryEvent> & { sql: string }) =>
      counted.push({
        component,
        sql: query.sql,
        roundTrip: query.roundTrip === undefined ? `single ${counted.length}` : `batch ${query.roundTrip}`,
      });
    db.on('query', listener);
    return () => db.off('query', listener);
  });
  return {
    stop: () => {
      for (const off of listeners) off();
      return counted;
    },
  };
}

describe('create-checkout: SQL statements for one new one-line order', () => {
  let stack: Stack;
  const counting = () =>
    countStatements({ checkout: stack.checkout!.db, inventory: stack.inventory!.db, loyalty: stack.loyalty!.db });
  // No background work of either component runs while an order is counted.
  startForSuite(
    () => startCheckoutStack({ RESERVATION_SWEEP_INTERVAL_MS: String(10 * 60 * 1000) }),
    (started) => (stack = started),
  );

  for (const { kind, body, budget } of ORDERS) {
    it(`stays within its statement budget on this backend: ${kind}`, async () => {
      const backend = process.env.STOREFRONT_TEST_BACKEND === 'mysql' ? 'mysql' : 'sqlite';
      // A first order shows inventory the size. The counted one comes from a buyer address never
      // seen before, as most orders do, so making its lock row is counted too.
      await expectCheckout(stack.client(), body(), newClientAddress());
      const counter = countStatements({
        checkout: stack.checkout!.db,
        inventory: stack.inventory!.db,
        loyalty: stack.loyalty!.db,
      });
      let counted: Counted[];
      try {
        await expectCheckout(stack.client(), body(), newClientAddress());
      } finally {
        counted = counter.stop();
      }
      const roundTrips = [...new Set(counted.map((statement) => statement.roundTrip))];
      const lines = counted.map(
        ({ component, sql, roundTrip }, index) =>
          `  ${String(index + 1).padStart(2)} ` +
          `${String(roundTrips.indexOf(roundTrip) + 1).padStart(2)} ${component.padEnd(9)} ` +
          `${sql.replace(/\s+/g, ' ').slice(0, 150)}`,
      );
      process.stdout.write(
        `      create-checkout of ${kind} on ${backend} (${stack.layout}): ${counted.length} ` +
          `statements in ${roundTrips.length} round trips\n${lines.join('\n')}\n`,
      );
      expect(counted.length, lines.join('\n')).to.be.at.most(budget.statements[backend]);
      expect(roundTrips.length, lines.join('\n')).to.be.at.most(budget.roundTrips);
    });
  }

  it('refuses, for a second, a size just refused: one statement, inventory untouched (decision 1346)', async () => {
    const oneUnit = () => checkoutBody(12 + 4.95, [{ sku: sku('low'), quantity: 1 }]);
    // Other baskets hold every unit of the size.
    for (let unit = 0; unit < LOW_STOCK; unit += 1) await expectCheckout(stack.client(), oneUnit(), newClientAddress());
    const first = await createCheckout(stack.client(), oneUnit(), newClientAddress());
    expect(first.status, first.text).to.equal(409);
    expect(first.body).to.include({ error: 'out_of_stock' });

    const counter = counting();
    const again = await createCheckout(stack.client(), oneUnit(), newClientAddress());
    const more = await createCheckout(
      stack.client(),
      checkoutBody(24 + 4.95, [{ sku: sku('low'), quantity: 2 }]),
      newClientAddress(),
    );
    const counted = counter.stop();
    for (const refused of [again, more]) {
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body).to.deep.equal(first.body);
    }
    // Only each order's reference was looked up: no order saved, no stock read.
    expect(counted.map(({ component }) => component)).to.deep.equal(['checkout', 'checkout']);

    await new Promise((resolve) => setTimeout(resolve, SOLD_OUT_MEMORY_MS));
    const later = counting();
    const asked = await createCheckout(stack.client(), oneUnit(), newClientAddress());
    expect(asked.status, asked.text).to.equal(409);
    expect(later.stop().some(({ component }) => component === 'inventory')).to.equal(true);
  });
});
