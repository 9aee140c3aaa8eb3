/**
 * `npm run migrate` on a fresh clone: with nothing but the store's location in the environment
 * (no caller-token key, no provider key) it builds the bundles, migrates every service and exits
 * 0; a second run finds nothing to do.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase, type Migration } from '@storefront/db';
import { migrations as checkoutMigrations } from '@storefront/checkout';
import { migrations as identityMigrations } from '@storefront/identity';
import { migrations as inventoryMigrations } from '@storefront/inventory';
import { migrations as loyaltyMigrations } from '@storefront/loyalty';
import { provisionStores, type TestStores } from '@storefront/testing';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MIGRATIONS: Record<string, Record<string, Migration>> = {
  identity: identityMigrations,
  loyalty: loyaltyMigrations,
  checkout: checkoutMigrations,
  inventory: inventoryMigrations,
};

describe('npm run migrate with only the store settings', function () {
  this.timeout(120_000);
  let stores: TestStores;
  before(async () => {
    stores = await provisionStores();
  });
  after(async () => {
    await stores?.cleanup();
  });

  /** Where the stores are and nothing else: a data directory, or each service's MySQL database. */
  function storeOnlyEnv(): Record<string, string> {
    const base = { PATH: process.env.PATH!, HOME: process.env.HOME! };
    if (stores.backend === 'sqlite') return { ...base, DATA_DIR: stores.dataDir };
    // A database per service under this run's prefix, so parallel runs never share one.
    return {
      ...base,
      ...Object.fromEntries(
        Object.keys(MIGRATIONS).map((service) => [`${service.toUpperCase()}_MYSQL_URL`, stores.mysqlUrlFor(service)!]),
      ),
    };
  }

  function migrate(): { status: number | null; applied: Record<string, string[]>; output: string } {
    const result = spawnSync('npm', ['run', 'migrate', '--silent'], {
      cwd: ROOT,
      env: storeOnlyEnv(),
      encoding: 'utf8',
    });
    const applied: Record<string, string[]> = {};
    for (const line of result.stdout.split('\n').filter((l) => l.startsWith('{'))) {
      const entry = JSON.parse(line) as { service: string; applied?: string[] };
      if (entry.applied) applied[entry.service] = entry.applied;
    }
    return { status: result.status, applied, output: result.stdout + result.stderr };
  }

  async function recordedMigrations(service: string): Promise<string[]> {
    const db = openDatabase({ service, dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor(service) });
    try {
      return (await db('knex_migrations').orderBy('id').pluck('name')) as string[];
    } finally {
      await db.destroy();
    }
  }

  it('migrates every service, then finds nothing to do the second time', async () => {
    const first = migrate();
    expect(first.status, first.output).to.equal(0);
    expect(first.output).to.not.include('configuration error');
    for (const [service, migrations] of Object.entries(MIGRATIONS)) {
      const names = Object.keys(migrations).sort();
      expect(first.applied[service], `${service} applied`).to.deep.equal(names);
      expect(await recordedMigrations(service), `${service} records`).to.deep.equal(names);
    }

    const second = migrate();
    expect(second.status, second.output).to.equal(0);
    expect(second.applied).to.deep.equal({ identity: [], loyalty: [], checkout: [], inventory: [] });
    for (const [service, migrations] of Object.entries(MIGRATIONS)) {
      expect(await recordedMigrations(service), `${service} records`).to.deep.equal(Object.keys(migrations).sort());
    }
  });
});
