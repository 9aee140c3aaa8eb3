/**
 * A batched transaction on the backend under test: its sends answer what knex answers for the
 * same statements, each send is one round trip (one group of knex 'query' events), a failure
 * stops its send and rolls back every send before it, and locks taken in one send hold until
 * COMMIT, so read-check-write sections serialise across connections.
 */
import { expect } from 'chai';
import {
  batchedTransaction,
  dialectOf,
  ensureMysqlDatabase,
  forUpdate,
  openDatabase,
  type BatchedQueryEvent,
  type Knex,
} from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';

describe('db: batched transactions', () => {
  let stores: TestStores;
  let db: Knex;
  before(async () => {
    stores = await provisionStores();
    const config = { service: 'batches', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('batches') };
    if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
    db = openDatabase(config);
    await db.schema.createTable('counters', (t) => {
      t.string('name', 36).primary();
      t.integer('value').notNullable();
      t.boolean('open').notNullable();
    });
  });
  beforeEach(async () => {
    await db('counters').delete();
    await db('counters').insert([
      { name: 'a', value: 1, open: true },
      { name: 'b', value: 2, open: false },
    ]);
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  const values = async () =>
    Object.fromEntries(
      (await db('counters').orderBy('name').select('name', 'value')).map((row) => [row.name, Number(row.value)]),
    );

  it("answers each statement of a send in order: a read's rows, a write's count, values as knex reads", async () => {
    const answers = await batchedTransaction(db, (batch) =>
      batch.commit(
        db('counters').where({ name: 'a' }).select('name', 'value', 'open'),
        db('counters').where('value', '>', 0).increment('value', 10),
        db('counters').insert({ name: 'c', value: 3, open: true }),
        db('counters').where({ name: 'nobody' }).update({ value: 0 }),
        db('counters').orderBy('name').select('name', 'value'),
      ),
    );
    expect(answers.map((answer) => answer.affectedRows)).to.deep.equal([0, 2, 1, 0, 0]);
    const [first] = answers[0]!.rows;
    expect({ ...first, open: Boolean(first!.open) }).to.deep.equal({ name: 'a', value: 1, open: true });
    expect(answers[4]!.rows.map((row) => [row.name, Number(row.value)])).to.deep.equal([
      ['a', 11],
      ['b', 12],
      ['c', 3],
    ]);
    expect(await values()).to.deep.equal({ a: 11, b: 12, c: 3 });
  });

  it('sends each send in one round trip: BEGIN with the first, COMMIT with the last, a query event each', async () => {
    const seen: Array<Partial<BatchedQueryEvent> & { sql: string }> = [];
    const record = (query: Partial<BatchedQueryEvent> & { sql: string }) => seen.push(query);
    db.on('query', record);
    try {
      await batchedTransaction(db, async (batch) => {
        await batch.send(
          db('counters').where({ name: 'a' }).select('value'),
          db('counters').where({ name: 'b' }).select('value'),
        );
        await batch.commit(db('counters').where({ name: 'a' }).update({ value: 5 }));
      });
    } finally {
      db.off('query', record);
    }
    expect(seen.map((query) => query.sql.split(' ')[0]!.toUpperCase())).to.deep.equal([
      'BEGIN',
      'SELECT',
      'SELECT',
      'UPDATE',
      'COMMIT',
    ]);
    const trips = seen.map((query) => query.roundTrip);
    expect(trips[0]).to.be.a('number');
    expect(new Set(trips.slice(0, 3)).size).to.equal(1);
    expect(new Set(trips.slice(3)).size).to.equal(1);
    expect(trips[3]).to.not.equal(trips[0]);
    expect(seen.find((query) => query.sql.startsWith('update'))!.bindings).to.deep.equal([5, 'a']);
  });

  it('commits on its own round trip when the work returns without committing', async () => {
    await batchedTransaction(db, async (batch) => {
      await batch.send(db('counters').where({ name: 'a' }).update({ value: 7 }));
    });
    expect(await values()).to.deep.equal({ a: 7, b: 2 });
  });

  it('stops a send at its first failing statement and rolls back every send before it', async () => {
    const failed = await batchedTransaction(db, async (batch) => {
      await batch.send(db('counters').where({ name: 'a' }).update({ value: 100 }));
      await batch.send(
        db('counters').where({ name: 'b' }).update({ value: 200 }),
        db('counters').insert({ name: 'a', value: 0, open: true }),
        db('counters').insert({ name: 'never', value: 0, open: true }),
      );
    }).catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(Error);
    expect(await values()).to.deep.equal({ a: 1, b: 2 });
    // The connection went back to the pool with no transaction open on it.
    await db('counters').where({ name: 'a' }).update({ value: 9 });
    expect(await values()).to.deep.equal({ a: 9, b: 2 });
  });

  it('rolls back a send that fails before its COMMIT, leaving no transaction and no lock behind', async () => {
    const failed = await batchedTransaction(db, (batch) =>
      batch.commit(
        db('counters').where({ name: 'a' }).update({ value: 50 }),
        db('counters').insert({ name: 'b', value: 0, open: true }),
      ),
    ).catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(Error);
    expect(await values()).to.deep.equal({ a: 1, b: 2 });
    // Every pooled connection can take the row's lock at once: none holds it in a forgotten transaction.
    await Promise.all(
      Array.from({ length: 4 }, () =>
        batchedTransaction(db, (batch) => batch.commit(db('counters').where({ name: 'a' }).increment('value', 1))),
      ),
    );
    expect(await values()).to.deep.equal({ a: 5, b: 2 });
  });

  it('refuses a send after a failed one, whose error the work caught, and rolls everything back', async () => {
    const refused = await batchedTransaction(db, async (batch) => {
      await batch.send(db('counters').where({ name: 'a' }).update({ value: 100 }));
      await batch.send(db('counters').insert({ name: 'a', value: 0, open: true })).catch(() => undefined);
      await batch.commit(db('counters').where({ name: 'b' }).update({ value: 200 }));
    }).catch((error: unknown) => error);
    expect((refused as Error).message).to.match(/can only be rolled back/);
    expect(await values()).to.deep.equal({ a: 1, b: 2 });
  });

  it('rolls back when the work throws between sends, and refuses a send after COMMIT', async () => {
    const refused = new Error('refused by the check');
    const thrown = await batchedTransaction(db, async (batch) => {
      await batch.send(db('counters').where({ name: 'a' }).update({ value: 100 }));
      throw refused;
    }).catch((error: unknown) => error);
    expect(thrown).to.equal(refused);
    expect(await values()).to.deep.equal({ a: 1, b: 2 });

    const late = await batchedTransaction(db, async (batch) => {
      await batch.commit(db('counters').where({ name: 'a' }).update({ value: 3 }));
      await batch.send(db('counters').where({ name: 'b' }).update({ value: 4 }));
    }).catch((error: unknown) => error);
    expect((late as Error).message).to.match(/already ended/);
    expect(await values()).to.deep.equal({ a: 3, b: 2 });
  });

  it('holds the locks of one send until COMMIT: concurrent read-check-write sections lose no update', async () => {
    const increments = 24;
    await Promise.all(
      Array.from({ length: increments }, () =>
        batchedTransaction(db, async (batch) => {
          const [read] = await batch.send(forUpdate(db('counters').where({ name: 'a' }).select('value'), db));
          // Another turn of the event loop between the read and the write, as a real check has.
          await new Promise((resolve) => setImmediate(resolve));
          await batch.commit(
            db('counters')
              .where({ name: 'a' })
              .update({ value: Number(read!.rows[0]!.value) + 1 }),
          );
        }),
      ),
    );
    expect((await values()).a).to.equal(1 + increments);
    if (dialectOf(db) === 'mysql') expect(db.client.pool.numUsed()).to.equal(0);
  });
});
