/** SQLite files under DATA_DIR hold password hashes and personal data: this user only, whatever the umask. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '@storefront/db';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('db: SQLite files under DATA_DIR', () => {
  let root: string;
  let savedUmask: number;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-data-files-'));
    // The most permissive umask: nothing may rely on it to keep the files private.
    savedUmask = process.umask(0);
  });
  afterEach(() => {
    process.umask(savedUmask);
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Opens the store, writes a row (so SQLite makes its -wal and -shm files) and closes it. */
  async function useStore(dataDir: string): Promise<void> {
    const db = openDatabase({ service: 'identity', dataDir });
    try {
      await db.raw('create table if not exists notes (text varchar(100))');
      await db('notes').insert({ text: 'personal data' });
      expect(
        fs.existsSync(path.join(dataDir, 'identity.sqlite-wal')),
        'the WAL file exists while the store is open',
      ).to.equal(true);
      for (const suffix of ['', '-wal', '-shm'])
        expect(modeOf(path.join(dataDir, `identity.sqlite${suffix}`)), suffix || 'database').to.equal(0o600);
    } finally {
      await db.destroy();
    }
  }

  it('creates the directory 0700, and the database with its -wal and -shm files 0600', async () => {
    const dataDir = path.join(root, 'nested', 'data');
    await useStore(dataDir);
    expect(modeOf(dataDir)).to.equal(0o700);
    expect(modeOf(path.join(dataDir, 'identity.sqlite'))).to.equal(0o600);
  });

  it('tightens a directory and files an earlier run left readable to others', async () => {
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir, { mode: 0o777 });
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      fs.writeFileSync(path.join(dataDir, `identity.sqlite${suffix}`), '', { mode: 0o666 });
    const db = openDatabase({ service: 'identity', dataDir });
    try {
      expect(modeOf(dataDir)).to.equal(0o700);
      for (const suffix of ['', '-wal', '-shm', '-journal'])
        expect(modeOf(path.join(dataDir, `identity.sqlite${suffix}`)), suffix || 'database').to.equal(0o600);
    } finally {
      await db.destroy();
    }
    await useStore(dataDir);
  });
});
