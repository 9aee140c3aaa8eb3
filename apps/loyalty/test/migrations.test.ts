/** Loyalty's migrations on the backend under test: a store from before balance columns is upgraded in place. */
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import { migrations } from '../src/migrations';

describe('loyalty migrations', () => {
  let stores: TestStores;
  let db: Knex;
  before(async () => {
    stores = await provisionStores();
    const mysqlUrl = stores.mysqlUrlFor('loyalty');
    if (mysqlUrl) await ensureMysqlDatabase(mysqlUrl);
    db = openDatabase({ service: 'loyalty', dataDir: stores.dataDir, mysqlUrl });
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('fills the new balance columns of existing accounts from their ledger', async () => {
    await applyMigrations(db, {
      '001-ledger': migrations['001-ledger']!,
      '002-reward-code-holds': migrations['002-reward-code-holds']!,
    });
    await db('accounts').insert(['spent', 'earned', 'unopened'].map((user_id) => ({ user_id, created_at: 1 })));
    const entry = (user_id: string, key: string, points: number) => ({
      id: `${user_id}-${key}`,
      user_id,
      idempotency_key: `${user_id}:${key}`,
      type: 'purchase',
      points,
      description: key,
      created_at: 1,
    });
    await db('ledger_entries').insert([
      entry('spent', 'welcome', 100),
      entry('spent', 'o-1', 900),
      entry('spent', 'r-1', -500),
      entry('earned', 'welcome', 100),
      entry('earned', 'o-2', 1400),
    ]);

    // 003 and every migration added after it.
    expect(await applyMigrations(db, migrations)).to.deep.equal(
      Object.keys(migrations).filter((name) => name >= '003-account-balances'),
    );
    const rows = await db('accounts').orderBy('user_id').select('user_id', 'points', 'lifetime_points');
    expect(
      rows.map((row) => ({ ...row, points: Number(row.points), lifetime_points: Number(row.lifetime_points) })),
    ).to.deep.equal([
      { user_id: 'earned', points: 1500, lifetime_points: 1500 },
      { user_id: 'spent', points: 500, lifetime_points: 1000 },
      { user_id: 'unopened', points: 0, lifetime_points: 0 },
    ]);
  });
});
