/**
 * Copies of live SQLite stores as of one instant (decision 1345): the write barrier waits for a writer holding a
 * store's lock, tries again once it is gone, and the copies hold what was committed before it closed, in
 * rollback-journal mode.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { copyLiveSqliteStores } from '@storefront/db';

describe('db: copies of live SQLite stores', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'live-copies-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function store(name: string): Database.Database {
    const db = new Database(path.join(dir, `${name}.sqlite`));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE rows (n INTEGER PRIMARY KEY)');
    db.prepare('INSERT INTO rows VALUES (1)').run();
    return db;
  }

  it('waits out a writer that holds a store past the barrier, then copies what it committed', async () => {
    const [a, b] = [store('a'), store('b')];
    // A transaction holding b's write lock for longer than the barrier waits on one try.
    b.exec('BEGIN IMMEDIATE');
    b.prepare('INSERT INTO rows VALUES (2)').run();
    const committed = new Promise<void>((resolve) =>
      setTimeout(() => {
        b.exec('COMMIT');
        resolve();
      }, 50),
    );
    const copies = ['a', 'b'].map((name) => ({
      source: path.join(dir, `${name}.sqlite`),
      target: path.join(dir, `${name}-copy.sqlite`),
    }));
    await copyLiveSqliteStores(copies);
    await committed;
    a.prepare('INSERT INTO rows VALUES (3)').run();
    for (const [index, expected] of [
      [0, [1]],
      [1, [1, 2]],
    ] as const) {
      const copy = new Database(copies[index]!.target, { readonly: true });
      try {
        expect(copy.prepare('SELECT n FROM rows ORDER BY n').pluck().all()).to.deep.equal(expected);
        expect(copy.pragma('journal_mode', { simple: true })).to.equal('delete');
      } finally {
        copy.close();
      }
    }
    a.close();
    b.close();
  });

  it('gives up with the store still busy after its tries, leaving the writer untouched', async () => {
    const b = store('b');
    b.exec('BEGIN IMMEDIATE');
    try {
      const copies = [{ source: path.join(dir, 'b.sqlite'), target: path.join(dir, 'b-copy.sqlite') }];
      const failure = await copyLiveSqliteStores(copies, { lockWaitMs: 100, attempts: 3 }).then(
        () => undefined,
        (error: { code?: string }) => error,
      );
      expect(failure?.code).to.equal('SQLITE_BUSY');
      b.prepare('INSERT INTO rows VALUES (2)').run();
      b.exec('COMMIT');
      expect(b.prepare('SELECT count(*) FROM rows').pluck().get()).to.equal(2);
    } finally {
      b.close();
    }
  });
});
