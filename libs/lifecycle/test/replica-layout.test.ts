/** How `REPLICAS=N npm start` lays N processes of every app out on one machine, and when it refuses. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

type Env = Record<string, string | undefined>;
interface ReplicaModule {
  replicaCount(env: Env): number;
  replicaLayout(
    apps: string[],
    env: Env,
    replicas: number,
  ): { app: string; replica: number; env: Record<string, string> }[];
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
// Loaded by path so TypeScript does not look for declarations of this plain ES module.
const load = () => import(path.join(ROOT, 'scripts', 'lib', 'replicas.mjs')) as Promise<ReplicaModule>;
const APPS = ['payment-sandbox', 'inventory', 'loyalty', 'identity', 'checkout', 'gateway'];

describe('npm start: the layout of several replicas', () => {
  let replicas: ReplicaModule;
  before(async () => {
    replicas = await load();
  });

  it('runs one process of each app unless REPLICAS says otherwise, and more only on MySQL', () => {
    expect(replicas.replicaCount({})).to.equal(1);
    expect(replicas.replicaCount({ REPLICAS: '3', MYSQL_URL: 'mysql://db:3306' })).to.equal(3);
    expect(() => replicas.replicaCount({ REPLICAS: '2' })).to.throw(
      'REPLICAS=2 needs MYSQL_URL (and REDIS_URL for sessions and rate limits): the embedded SQLite ' +
        'files of identity, loyalty, checkout, inventory cannot be shared by several processes',
    );
    // One service left on its SQLite file is enough to refuse.
    expect(() =>
      replicas.replicaCount({
        REPLICAS: '2',
        IDENTITY_MYSQL_URL: 'mysql://db/i',
        LOYALTY_MYSQL_URL: 'mysql://db/l',
        CHECKOUT_MYSQL_URL: 'mysql://db/c',
      }),
    ).to.throw('the embedded SQLite files of inventory cannot');
    for (const bad of ['0', '10', 'two', '1.5']) {
      expect(() => replicas.replicaCount({ REPLICAS: bad, MYSQL_URL: 'mysql://db:3306' })).to.throw(
        `REPLICAS must be an integer between 1 and 9, got "${bad}"`,
      );
    }
  });

  it('gives replica i its own ports and every client all replicas of a service; the sandbox runs once', () => {
    const layout = replicas.replicaLayout(
      APPS,
      { PORT: '9000', METRICS_PORT: '7000', INVENTORY_ADDR: '127.0.0.1:6054' },
      2,
    );
    const of = (app: string, replica: number) =>
      layout.find((entry) => entry.app === app && entry.replica === replica)!.env;
    expect(layout.filter((entry) => entry.app === 'payment-sandbox')).to.have.length(1);
    expect(layout.filter((entry) => entry.app === 'gateway').map((entry) => entry.env.PORT)).to.deep.equal([
      '9000',
      '9001',
    ]);
    expect(of('inventory', 0).INVENTORY_ADDR).to.equal('127.0.0.1:6054');
    expect(of('inventory', 1).INVENTORY_ADDR).to.equal('127.0.0.1:6154');
    expect(of('identity', 1).IDENTITY_ADDR).to.equal('127.0.0.1:50151');
    for (const client of ['gateway', 'checkout']) {
      for (const replica of [0, 1])
        expect(of(client, replica).INVENTORY_ADDR).to.equal('127.0.0.1:6054,127.0.0.1:6154');
    }
    // Admin ports keep the one-app-per-port table from METRICS_PORT, 100 higher per replica.
    expect(layout.map((entry) => `${entry.app}#${entry.replica} ${entry.env.METRICS_PORT}`)).to.have.members([
      'payment-sandbox#0 7005',
      'inventory#0 7004',
      'loyalty#0 7002',
      'identity#0 7001',
      'checkout#0 7003',
      'gateway#0 7000',
      'inventory#1 7104',
      'loyalty#1 7102',
      'identity#1 7101',
      'checkout#1 7103',
      'gateway#1 7100',
    ]);
    expect(
      new Set(replicas.replicaLayout(APPS, { METRICS_PORT: '0' }, 2).map((entry) => entry.env.METRICS_PORT)),
    ).to.deep.equal(new Set(['0']));
    expect(() => replicas.replicaLayout(APPS, { LOYALTY_ADDR: 'dns:///loyalty:50052' }, 2)).to.throw(
      'LOYALTY_ADDR must be one host:port to run several replicas',
    );
  });

  it('stops `npm start` with one line, before writing anything, when several replicas would share SQLite files', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-replicas-'));
    try {
      const env = { PATH: process.env.PATH, DATA_DIR: dataDir, REPLICAS: '2' };
      const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr.trim().split('\n')).to.deep.equal([
        'start: REPLICAS=2 needs MYSQL_URL (and REDIS_URL for sessions and rate limits): the ' +
          'embedded SQLite files of identity, loyalty, checkout, inventory cannot be shared by several processes',
      ]);
      // Refused before any key or database file was written.
      expect(fs.readdirSync(dataDir)).to.deep.equal([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
