/**
 * Receipt numbers without gaps (decision 1290): payments confirmed at once, on two replicas sharing one MySQL store
 * (one connection on SQLite), take consecutive numbers, none repeated or skipped; an order that is not paid takes none.
 */
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import { migrations } from '../src/migrations';
import { CheckoutStore } from '../src/stores/checkout';
import { insertOpenOrders } from './support';

describe('checkout: receipt numbers', function () {
  this.timeout(60_000);
  let stores: TestStores;
  let replicas: Knex[];

  before(async () => {
    stores = await provisionStores();
    const config = { service: 'checkout', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('checkout') };
    if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
    // Replicas share MySQL; an embedded SQLite store has one process, so its writes queue on one connection.
    const db = openDatabase(config);
    replicas = [db, config.mysqlUrl ? openDatabase(config) : db];
    await applyMigrations(replicas[0]!, migrations);
  });
  after(async () => {
    await Promise.all([...new Set(replicas ?? [])].map((db) => db.destroy()));
    await stores?.cleanup();
  });

  const receiptNumbers = (ids: string[]) =>
    Promise.all(
      ids.map(async (id) => {
        const row = await replicas[0]!('orders').where({ id }).first('receipt_number');
        return row?.receipt_number === null ? null : Number(row?.receipt_number);
      }),
    );

  it('gives 50 payments confirmed at once over replicas 50 consecutive numbers', async () => {
    const now = Date.now();
    const [first] = await insertOpenOrders(replicas[0]!, 1, { createdAt: now, reservedUntil: now, label: 'first' });
    await new CheckoutStore(replicas[0]!).finalise(first!, 'paid', now);
    const [start] = await receiptNumbers([first!]);

    const ids = await insertOpenOrders(replicas[0]!, 50, { createdAt: now, reservedUntil: now, label: 'rush' });
    const stores = replicas.map((db) => new CheckoutStore(db));
    const finalised = await Promise.all(ids.map((id, index) => stores[index % 2]!.finalise(id, 'paid', now + index)));

    expect(finalised.every(Boolean)).to.equal(true);
    const numbers = (await receiptNumbers(ids)).map(Number).sort((a, b) => a - b);
    expect(numbers).to.deep.equal(Array.from({ length: 50 }, (_, index) => start! + 1 + index));
    expect((await stores[0]!.findById(ids[0]!))?.receiptNumber).to.be.a('number');
  });

  it('gives no number to an order that is not paid, nor again to one already final', async () => {
    const now = Date.now();
    const [expired, paid] = await insertOpenOrders(replicas[0]!, 2, { createdAt: now, reservedUntil: now, label: 'x' });
    const store = new CheckoutStore(replicas[1]!);
    await store.finalise(expired!, 'expired', now);
    await store.finalise(paid!, 'paid', now);
    const [paidNumber] = await receiptNumbers([paid!]);

    expect(await store.finalise(paid!, 'paid', now)).to.equal(false);
    expect(await receiptNumbers([expired!, paid!])).to.deep.equal([null, paidNumber]);
    const { last_number: last } = (await replicas[0]!('document_counters').where({ series: 'receipt' }).first())!;
    expect(Number(last)).to.equal(paidNumber);
  });
});
