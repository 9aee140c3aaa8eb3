/**
 * An embedded store's transactions take SQLite's write lock as they begin, so one that reads before it writes waits
 * (busy_timeout) for another process holding the lock for a moment, as a backup's barrier does, instead of failing at
 * its first write. The holder is a child process: this process's own connection waits synchronously.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { batchedTransaction, openDatabase, sqliteStoreFile, type Knex } from '@storefront/db';

const HOLD_MS = 300;

/** Another process takes the store's write lock and keeps it HOLD_MS; resolves once it holds it. */
async function holdWriteLock(file: string): Promise<{ released: Promise<void> }> {
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const db = new (require('better-sqlite3'))(process.argv[1]);
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('held');
       setTimeout(() => db.exec('ROLLBACK'), ${HOLD_MS});`,
      file,
    ],
    { cwd: path.dirname(require.resolve('better-sqlite3/package.json')), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const released = new Promise<void>((resolve, reject) =>
    holder.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the holder exited with ${code}`)))),
  );
  await new Promise((resolve, reject) => {
    holder.stdout.once('data', resolve);
    holder.once('error', reject);
  });
  return { released };
}

describe('db: an embedded store waits for a write lock another process holds a moment', () => {
  let dataDir: string;
  let db: Knex;
  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-begin-'));
    db = openDatabase({ service: 'begin', dataDir });
    await db.schema.createTable('rows', (t) => t.integer('n').primary());
  });
  after(async () => {
    await db?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a transaction that reads before it writes commits once the lock is free', async () => {
    const { released } = await holdWriteLock(sqliteStoreFile(dataDir, 'begin'));
    await db.transaction(async (trx) => {
      const [counted] = await trx('rows').count({ count: '*' });
      await trx('rows').insert({ n: Number(counted!.count) + 1 });
    });
    await released;
    expect(await db('rows').pluck('n')).to.deep.equal([1]);
  });

  it('so does a batched transaction whose first send only reads', async () => {
    const { released } = await holdWriteLock(sqliteStoreFile(dataDir, 'begin'));
    await batchedTransaction(db, async (batch) => {
      await batch.send(db('rows').count({ count: '*' }));
      await batch.commit(db('rows').insert({ n: 2 }));
    });
    await released;
    expect(await db('rows').orderBy('n').pluck('n')).to.deep.equal([1, 2]);
  });
});
