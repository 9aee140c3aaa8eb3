/**
 * A prepared read answers what the same knex query answers, on the backend under test: the
 * same rows with the same types, only committed data (never a transaction's own writes still
 * open on SQLite's single connection), and one knex 'query' event per call.
 */
import { expect } from 'chai';
import { ensureMysqlDatabase, openDatabase, preparedRead, STORE_STALL_TIMEOUT_MS, type Knex } from '@storefront/db';
import { currentBackend, startFaultProxy, provisionStores, type TestStores } from '@storefront/testing';

describe('db: reads prepared below knex', () => {
  let stores: TestStores;
  let db: Knex;
  before(async () => {
    stores = await provisionStores();
    const config = { service: 'preparedreads', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('preparedreads') };
    if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
    db = openDatabase(config);
    await db.schema.createTable('notes', (t) => {
      t.string('id', 36).primary();
      t.string('owner', 36).notNullable().index();
      t.string('text', 100).nullable();
      t.bigInteger('written_at').notNullable();
      t.integer('stars').notNullable();
    });
    await db('notes').insert([
      { id: 'n1', owner: 'ann', text: 'first', written_at: 1_700_000_000_001, stars: 3 },
      { id: 'n2', owner: 'ann', text: null, written_at: 1_700_000_000_002, stars: 0 },
      { id: 'n3', owner: 'bob', text: 'other', written_at: 1_700_000_000_003, stars: 5 },
    ]);
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  const byOwner = (owner: string) =>
    db('notes').where({ owner }).orderBy('id').select('id', 'text', 'written_at', 'stars');

  it('answers the rows knex answers, with the same values and types', async () => {
    const read = preparedRead(db, byOwner);
    expect(await read('ann')).to.deep.equal(await byOwner('ann'));
    expect(await read('ann')).to.deep.equal([
      { id: 'n1', text: 'first', written_at: 1_700_000_000_001, stars: 3 },
      { id: 'n2', text: null, written_at: 1_700_000_000_002, stars: 0 },
    ]);
    expect(await read('nobody')).to.deep.equal([]);
  });

  it('binds a parameter used several times, and a read without parameters', async () => {
    const read = preparedRead(db, (owner: string) =>
      db('notes').where({ owner }).orWhere('id', owner).orderBy('id').select('id'),
    );
    expect((await read('n3')).map((row) => row.id)).to.deep.equal(['n3']);
    const everything = preparedRead(db, () => db('notes').count('* as notes'));
    expect(Number((await everything())[0]!.notes)).to.equal(3);
  });

  it('emits one knex query event per call, with the SQL and the values', async () => {
    const read = preparedRead(db, (id: string) => db('notes').where({ id }).select('text'));
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const record = (query: { sql: string; bindings: unknown[] }) => seen.push(query);
    db.on('query', record);
    try {
      await read('n1');
    } finally {
      db.off('query', record);
    }
    expect(seen).to.have.length(1);
    expect(seen[0]!.sql).to.match(/^select [`"]text[`"] from [`"]notes[`"] where [`"]id[`"] = \?$/);
    expect(seen[0]!.bindings).to.deep.equal(['n1']);
  });

  it('never sees a write of a transaction still open, and sees it once committed', async () => {
    const read = preparedRead(db, byOwner);
    const trx = await db.transaction();
    await trx('notes').insert({ id: 'n4', owner: 'cat', text: 'draft', written_at: 1_700_000_000_004, stars: 1 });
    // On SQLite the read waits for the one connection until the transaction ends.
    const duringTransaction = read('cat');
    await trx.rollback();
    expect(await duringTransaction).to.deep.equal([]);

    await db.transaction(async (committing) => {
      await committing('notes').insert({
        id: 'n5',
        owner: 'cat',
        text: 'kept',
        written_at: 1_700_000_000_005,
        stars: 2,
      });
    });
    expect(await read('cat')).to.deep.equal([{ id: 'n5', text: 'kept', written_at: 1_700_000_000_005, stars: 2 }]);
  });

  it('answers at once while a connection is held outside a transaction (on SQLite the only one)', async () => {
    const read = preparedRead(db, byOwner);
    const held: unknown = await db.client.acquireConnection();
    try {
      expect(await read('bob')).to.deep.equal([{ id: 'n3', text: 'other', written_at: 1_700_000_000_003, stars: 5 }]);
    } finally {
      await db.client.releaseConnection(held);
    }
  });

  it('compiles its statement once on SQLite, not on every call', async function () {
    if (currentBackend() !== 'sqlite') this.skip();
    const read = preparedRead(db, byOwner);
    const connection = (await db.client.acquireConnection()) as { prepare: (sql: string) => unknown };
    await db.client.releaseConnection(connection);
    const prepare = connection.prepare;
    let compiled = 0;
    connection.prepare = function (this: unknown, sql: string) {
      compiled += 1;
      return prepare.call(this, sql);
    };
    try {
      for (const owner of ['ann', 'bob', 'ann']) expect(await read(owner)).to.have.length.above(0);
    } finally {
      connection.prepare = prepare;
    }
    expect(compiled).to.equal(1);
  });

  it('refuses a query that binds anything but its parameters, naming the value to put in the SQL', () => {
    expect(() => preparedRead(db, (owner: string) => db('notes').where({ owner }).limit(10))).to.throw(
      /bind only its parameters; put 10 in its SQL/,
    );
    expect(() =>
      preparedRead(db, (owner: string) => db('notes').where({ owner }).limit(10, { skipBinding: true })),
    ).not.to.throw();
  });

  it('refuses a query whose answer is not its rows', () => {
    expect(() => preparedRead(db, (id: string) => db('notes').where({ id }).first('text'))).to.throw(
      /plain select, not first/,
    );
    expect(() => preparedRead(db, (owner: string) => db('notes').where({ owner }).pluck('id'))).to.throw(
      /plain select, not pluck/,
    );
  });

  it('fails as a store outage (ETIMEDOUT) within the stall limit when MySQL hangs', async function () {
    if (currentBackend() !== 'mysql') this.skip();
    this.timeout(STORE_STALL_TIMEOUT_MS + 5_000);
    const relay = await startFaultProxy(stores.mysqlUrlFor('preparedreads')!);
    const relayed = openDatabase({
      service: 'preparedreads',
      dataDir: stores.dataDir,
      mysqlUrl: relay.through(stores.mysqlUrlFor('preparedreads')!),
    });
    try {
      const read = preparedRead(relayed, byOwner);
      expect(await read('bob')).to.have.length(1);
      relay.freeze();
      const started = Date.now();
      const failure = await read('bob').catch((error: unknown) => error);
      expect(failure).to.have.property('code', 'ETIMEDOUT');
      expect(Date.now() - started).to.be.below(STORE_STALL_TIMEOUT_MS + 1_000);
    } finally {
      await relayed.destroy();
      await relay.close();
    }
  });
});
