/**
 * Backups of the embedded default (decision 1270): taken while every store is being written, each store's copy is the
 * store as of one moment; restore fills only an empty DATA_DIR and refuses an archive that is damaged, partial,
 * tampered with or newer than the code, writing nothing then; the schedule keeps the newest BACKUP_KEEP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { EnvReader } from '@storefront/config';
import { applyMigrations, openDatabase, type Knex, type Migration } from '@storefront/db';
import { migrations as checkoutMigrations } from '@storefront/checkout';
import { migrations as identityMigrations } from '@storefront/identity';
import { migrations as inventoryMigrations } from '@storefront/inventory';
import { migrations as loyaltyMigrations } from '@storefront/loyalty';
import {
  COMPONENTS,
  platformOps,
  readBackupSchedule,
  restoreBackup,
  scheduledBackupName,
  takeScheduledBackup,
  type BackupManifest,
} from '@storefront/platform';
import { rejection, runOpsJson } from '@storefront/testing';

const MIGRATIONS: Record<string, Record<string, Migration>> = {
  identity: identityMigrations,
  loyalty: loyaltyMigrations,
  checkout: checkoutMigrations,
  inventory: inventoryMigrations,
};
const KNOWN = Object.fromEntries(Object.entries(MIGRATIONS).map(([service, all]) => [service, Object.keys(all)]));

const tempDir = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));

/** Every component's store under `dataDir`, migrated, each with a probe table the test writes numbered rows to. */
async function openStores(dataDir: string): Promise<Record<string, Knex>> {
  const stores: Record<string, Knex> = {};
  for (const service of COMPONENTS) {
    const db = openDatabase({ service, dataDir });
    await applyMigrations(db, MIGRATIONS[service]!);
    await db.schema.createTable('backup_probe', (table) => table.integer('n').primary());
    stores[service] = db;
  }
  return stores;
}

const closeAll = (stores: Record<string, Knex>) => Promise.all(Object.values(stores).map((db) => db.destroy()));

/** Unpacks an archive's entries into memory. */
async function entriesOf(archive: string): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.end(zlib.gunzipSync(fs.readFileSync(archive)));
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    entries.set(entry.header.name, Buffer.concat(chunks));
  }
  return entries;
}

/** Writes `entries` as an archive, in order. */
async function packArchive(file: string, entries: Array<[string, Buffer | string]>): Promise<void> {
  const pack = tar.pack();
  for (const [name, body] of entries) pack.entry({ name }, body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  fs.writeFileSync(file, zlib.gzipSync(Buffer.concat(chunks)));
}

const storeFiles = (dataDir: string) => fs.readdirSync(dataDir).filter((name) => name.endsWith('.sqlite'));

describe('backup and restore of the embedded stores', function () {
  this.timeout(60_000);
  let dataDir: string;
  let work: string;
  let stores: Record<string, Knex>;
  let archive: string;
  let manifest: BackupManifest;
  let written: Record<string, number>;

  before(async () => {
    dataDir = tempDir('backup-data');
    work = tempDir('backup-work');
    stores = await openStores(dataDir);
    fs.writeFileSync(path.join(dataDir, 'platform-keys.json'), '{"callerToken":"test keys"}', { mode: 0o600 });
    archive = path.join(work, 'shop.tar.gz');
    // One workflow writes each number to every store in turn, a commit each, as a request spanning components does,
    // all through the backup.
    written = Object.fromEntries(COMPONENTS.map((service) => [service, 0]));
    let writing = true;
    const writer = (async () => {
      for (let n = 1; writing; n += 1) {
        for (const service of COMPONENTS) {
          await stores[service]!('backup_probe').insert({ n });
          written[service] = n;
          // SQLite answers at once: without a turn of the event loop the backup's file reads would never run.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    })();
    while (written[COMPONENTS.at(-1)!]! < 20) await new Promise((resolve) => setImmediate(resolve));
    const env = { DATA_DIR: dataDir, MYSQL_URL: '' };
    const { code, json } = await runOpsJson<{ manifest: BackupManifest }>(platformOps, ['backup', archive], env);
    writing = false;
    await writer;
    expect(code, JSON.stringify(json)).to.equal(0);
    manifest = json.manifest;
  });
  after(async () => {
    await closeAll(stores);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('holds a manifest first, then every store with its size, checksum and migrations', async () => {
    const entries = await entriesOf(archive);
    expect([...entries.keys()]).to.deep.equal([
      'manifest.json',
      ...COMPONENTS.map((name) => `${name}.sqlite`),
      'platform-keys.json',
    ]);
    expect(manifest.files.map((copy) => copy.file)).to.deep.equal(['platform-keys.json']);
    expect(manifest.stores.map((store) => store.service)).to.deep.equal([...COMPONENTS]);
    for (const store of manifest.stores) {
      expect(entries.get(store.file)!.length).to.equal(store.bytes);
      expect(store.migrations).to.deep.equal(KNOWN[store.service]);
      expect(store.sha256).to.match(/^[0-9a-f]{64}$/);
    }
    expect(fs.statSync(archive).mode & 0o777).to.equal(0o600);
    expect(fs.readdirSync(work)).to.deep.equal(['shop.tar.gz']);
  });

  it('restores into an empty DATA_DIR a copy of every store as of one instant while they were written', async () => {
    const restored = tempDir('backup-restored');
    const copied: number[] = [];
    try {
      const { code } = await runOpsJson(platformOps, ['restore', archive], { DATA_DIR: restored, MYSQL_URL: '' });
      expect(code).to.equal(0);
      expect(storeFiles(restored).sort()).to.deep.equal(COMPONENTS.map((name) => `${name}.sqlite`).sort());
      expect(fs.readFileSync(path.join(restored, 'platform-keys.json'), 'utf8')).to.equal(
        '{"callerToken":"test keys"}',
      );
      for (const service of COMPONENTS) {
        const db = openDatabase({ service, dataDir: restored });
        try {
          const rows = (await db('backup_probe').orderBy('n').pluck('n')) as number[];
          // A prefix of what was written: every row up to the copy's moment, none missing, none after.
          expect(rows).to.deep.equal(rows.map((_, index) => index + 1));
          expect(rows.length).to.be.at.most(written[service]!);
          copied.push(rows.length);
          const applied = (await db('knex_migrations').orderBy('id').pluck('name')) as string[];
          expect(applied).to.deep.equal(KNOWN[service]);
        } finally {
          await db.destroy();
        }
      }
      // One instant across the stores: the workflow had written its last number to the first stores and not yet to the
      // rest, never more (stores copied one after another would each be further on than the one before).
      const [first] = copied;
      expect(
        copied.every((count, index) => count <= (copied[index - 1] ?? count)),
        copied.join(' '),
      ).to.equal(true);
      expect(copied.at(-1), copied.join(' ')).to.be.at.least(first! - 1);
      expect(first).to.be.greaterThan(0);
    } finally {
      fs.rmSync(restored, { recursive: true, force: true });
    }
  });

  it('refuses a DATA_DIR that already holds a store, and changes nothing there', async () => {
    const error = await rejection(restoreBackup(archive, dataDir, KNOWN));
    expect(error).to.include({ code: 'data_dir_not_empty' });
    const { code, json } = await runOpsJson(platformOps, ['restore', archive], { DATA_DIR: dataDir, MYSQL_URL: '' });
    expect(code).to.equal(1);
    expect(json).to.include({ success: false, error: 'data_dir_not_empty' });
  });

  /** Restores `file` into a fresh DATA_DIR, expecting a refusal with `code`; the DATA_DIR must stay empty. */
  async function expectRefused(file: string, code: string, detail: RegExp) {
    const target = tempDir('backup-refused');
    try {
      const error = await rejection(restoreBackup(file, target, KNOWN));
      expect(error).to.include({ code });
      expect(error.message).to.match(detail);
      expect(fs.readdirSync(target)).to.deep.equal([]);
    } finally {
      fs.rmSync(target, { recursive: true, force: true });
    }
  }

  it('refuses a truncated archive and one with a flipped byte', async () => {
    const bytes = fs.readFileSync(archive);
    const truncated = path.join(work, 'truncated.tar.gz');
    fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectRefused(truncated, 'backup_damaged', /damaged or incomplete/);
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 2)]! ^= 0xff;
    const corrupt = path.join(work, 'flipped.tar.gz');
    fs.writeFileSync(corrupt, flipped);
    await expectRefused(corrupt, 'backup_damaged', /damaged or incomplete/);
  });

  it('refuses an archive missing a store or with a tampered store, an unknown entry or a newer schema', async () => {
    const entries = await entriesOf(archive);
    const files = [...COMPONENTS.map((name) => `${name}.sqlite`), 'platform-keys.json'].map(
      (name) => [name, entries.get(name)!] as [string, Buffer],
    );
    const withManifest = (changed: BackupManifest) => ['manifest.json', JSON.stringify(changed)] as [string, string];

    const partial = path.join(work, 'partial.tar.gz');
    const withoutCheckout = { ...manifest, stores: manifest.stores.filter((store) => store.service !== 'checkout') };
    await packArchive(partial, [
      withManifest(withoutCheckout),
      ...files.filter(([name]) => name !== 'checkout.sqlite'),
    ]);
    await expectRefused(partial, 'backup_damaged', /holds no checkout store/);

    const tampered = path.join(work, 'tampered.tar.gz');
    const changedStore = Buffer.from(files[0]![1]);
    changedStore[changedStore.length - 1]! ^= 0x01;
    await packArchive(tampered, [withManifest(manifest), [files[0]![0], changedStore], ...files.slice(1)]);
    await expectRefused(tampered, 'backup_damaged', /does not match its checksum/);

    const extra = path.join(work, 'extra.tar.gz');
    await packArchive(extra, [withManifest(manifest), ...files, ['../escape.sqlite', 'x']]);
    await expectRefused(extra, 'backup_damaged', /unexpected entry "\.\.\/escape\.sqlite"/);

    const newer = path.join(work, 'newer.tar.gz');
    const ahead = {
      ...manifest,
      stores: manifest.stores.map((store) =>
        store.service === 'loyalty' ? { ...store, migrations: [...store.migrations, '999-from-the-future'] } : store,
      ),
    };
    await packArchive(newer, [withManifest(ahead), ...files]);
    await expectRefused(newer, 'backup_newer_than_code', /999-from-the-future/);
  });

  it('never overwrites a file, refuses a DATA_DIR without the stores, and leaves MySQL to its own tools', async () => {
    const again = await runOpsJson(platformOps, ['backup', archive], { DATA_DIR: dataDir, MYSQL_URL: '' });
    expect(again.json).to.include({ success: false, error: 'backup_exists' });
    const empty = tempDir('backup-empty');
    try {
      const none = await runOpsJson(platformOps, ['backup', path.join(work, 'none.tar.gz')], {
        DATA_DIR: empty,
        MYSQL_URL: '',
      });
      expect(none.json).to.include({ success: false, error: 'store_missing' });
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    const mysql = await runOpsJson(platformOps, ['backup', path.join(work, 'mysql.tar.gz')], {
      DATA_DIR: dataDir,
      MYSQL_URL: 'mysql://root@127.0.0.1:3306',
    });
    expect(mysql.json).to.include({ success: false, error: 'not_embedded' });
    expect(mysql.json.detail).to.match(/docs\/operations\.md/);
  });

  it('on a schedule, keeps the newest BACKUP_KEEP backups', async () => {
    const dir = path.join(work, 'scheduled');
    const schedule = readBackupSchedule(
      new EnvReader({ BACKUP_DIR: dir, BACKUP_INTERVAL_MINUTES: '30', BACKUP_KEEP: '3' }),
    )!;
    expect(schedule).to.deep.equal({ dir, intervalMs: 30 * 60_000, keep: 3 });
    let at = Date.parse('2026-11-28T09:00:00Z');
    for (let taken = 0; taken < 5; taken += 1) {
      await takeScheduledBackup(schedule, dataDir, COMPONENTS, () => at);
      at += schedule.intervalMs;
    }
    expect(fs.readdirSync(dir).sort()).to.deep.equal([
      'storefront-backup-20261128T100000Z.tar.gz',
      'storefront-backup-20261128T103000Z.tar.gz',
      'storefront-backup-20261128T110000Z.tar.gz',
    ]);
    expect(scheduledBackupName(Date.parse('2026-03-29T01:05:09.123Z'))).to.equal(
      'storefront-backup-20260329T010509Z.tar.gz',
    );
  });

  it('reads the schedule only for the embedded stores, within its bounds', () => {
    expect(readBackupSchedule(new EnvReader({}))).to.equal(undefined);
    expect(() => readBackupSchedule(new EnvReader({ BACKUP_DIR: '/b', MYSQL_URL: 'mysql://root@127.0.0.1' }))).to.throw(
      /database tools/,
    );
    expect(() => readBackupSchedule(new EnvReader({ BACKUP_DIR: '/b', BACKUP_INTERVAL_MINUTES: '1' }))).to.throw(
      /BACKUP_INTERVAL_MINUTES/,
    );
    expect(readBackupSchedule(new EnvReader({ BACKUP_DIR: '/b' }))).to.deep.equal({
      dir: '/b',
      intervalMs: 60 * 60_000,
      keep: 7,
    });
  });
});
