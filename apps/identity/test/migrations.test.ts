/** Identity's migrations on the backend under test: a store from before verified addresses is upgraded in place. */
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import { migrations } from '../src/migrations';
import { UserStore } from '../src/stores/users';

describe('identity migrations', () => {
  let stores: TestStores;
  let db: Knex;
  before(async () => {
    stores = await provisionStores();
    const mysqlUrl = stores.mysqlUrlFor('identity');
    if (mysqlUrl) await ensureMysqlDatabase(mysqlUrl);
    db = openDatabase({ service: 'identity', dataDir: stores.dataDir, mysqlUrl });
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('counts the accounts made before verification links as verified when they were made, and no later one', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '030'));
    await applyMigrations(db, before);
    const account = (id: string, createdAt: number) => ({
      id,
      email: `${id}@example.test`,
      password_hash: 'hash',
      first_name: 'Ada',
      last_name: 'Lovelace',
      referral_code: id.toUpperCase().padEnd(8, 'X'),
      created_at: createdAt,
    });
    await db('users').insert([account('older', 1_000), account('old', 2_000)]);

    expect(await applyMigrations(db, migrations)).to.include('030-email-verification');
    const users = new UserStore(db);
    expect((await users.findById('older'))!.emailVerifiedAt).to.equal(1_000);
    expect((await users.findById('old'))!.emailVerifiedAt).to.equal(2_000);
    await db('users').insert(account('new', 3_000));
    expect(await users.findById('new')).to.not.have.property('emailVerifiedAt');
  });
});
