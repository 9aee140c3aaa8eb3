/**
 * A service's store as it opens for serving: migrated first when asked (the embedded default),
 * otherwise refused while it misses migrations, naming them and `npm run migrate`.
 */
import { expect } from 'chai';
import { SchemaNotMigrated, openServiceStore, type Migration, type StoreConfig } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';

const MIGRATIONS: Record<string, Migration> = {
  '001-things': {
    up: (db) => db.schema.createTable('things', (t) => t.string('id').primary()),
    down: (db) => db.schema.dropTable('things'),
  },
  '002-thing-names': {
    up: (db) => db.schema.alterTable('things', (t) => t.string('name')),
    down: (db) => db.schema.alterTable('things', (t) => t.dropColumn('name')),
  },
};

describe('db: opening a service store to serve', () => {
  let stores: TestStores;
  let config: StoreConfig;
  before(async () => {
    stores = await provisionStores();
    config = { service: 'servestore', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('servestore') };
  });
  after(async () => stores?.cleanup());

  async function refusal(migrations: Record<string, Migration>): Promise<SchemaNotMigrated> {
    const error = await openServiceStore(config, migrations, { migrate: false }).then(
      async (db) => {
        await db.destroy();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(error).to.be.instanceOf(SchemaNotMigrated);
    return error as SchemaNotMigrated;
  }

  it('refuses a store never migrated (on MySQL, a database never created), naming every migration', async () => {
    const error = await refusal(MIGRATIONS);
    expect(error.pending).to.deep.equal(['001-things', '002-thing-names']);
    expect(error.message).to.equal(
      'the servestore database is not migrated (2 pending: 001-things, 002-thing-names); ' +
        "run `npm run migrate` (or the image's `migrate` command) against it first",
    );
  });

  it('migrates when asked, refuses once a migration is added, and opens a current store', async () => {
    const first = { '001-things': MIGRATIONS['001-things']! };
    await (await openServiceStore(config, first, { migrate: true })).destroy();
    expect((await refusal(MIGRATIONS)).pending).to.deep.equal(['002-thing-names']);

    await (await openServiceStore(config, MIGRATIONS, { migrate: true })).destroy();
    const db = await openServiceStore(config, MIGRATIONS, { migrate: false });
    try {
      await db('things').insert({ id: 'a', name: 'A' });
      expect(await db('things').pluck('name')).to.deep.equal(['A']);
    } finally {
      await db.destroy();
    }
  });
});
