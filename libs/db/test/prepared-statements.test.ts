import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase, type Knex } from '@storefront/db';

describe('db: SQLite keeps the statements it prepared', () => {
  let dataDir: string;
  let db: Knex;
  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-statements-'));
    db = openDatabase({ service: 'inventory', dataDir });
    await db.raw('create table notes (id integer primary key, text varchar(100))');
  });
  after(async () => {
    await db?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('hands out one statement per SQL text, and runs it again with new bindings', async () => {
    const connection = (await db.client.acquireConnection()) as { prepare(sql: string): unknown };
    try {
      expect(connection.prepare('select text from notes where id = ?')).to.equal(
        connection.prepare('select text from notes where id = ?'),
      );
      expect(connection.prepare('select id from notes')).to.not.equal(
        connection.prepare('select text from notes where id = ?'),
      );
    } finally {
      await db.client.releaseConnection(connection);
    }
    await db('notes').insert([
      { id: 1, text: 'one' },
      { id: 2, text: 'two' },
    ]);
    expect(await db('notes').where({ id: 1 }).first('text')).to.deep.equal({ text: 'one' });
    expect(await db('notes').where({ id: 2 }).first('text')).to.deep.equal({ text: 'two' });
  });

  it('sees a column added after a statement was kept', async () => {
    expect(await db('notes').where({ id: 1 }).first()).to.deep.equal({ id: 1, text: 'one' });
    await db.schema.alterTable('notes', (t) => t.string('tag').nullable());
    await db('notes').where({ id: 1 }).update({ tag: 'first' });
    expect(await db('notes').where({ id: 1 }).first()).to.deep.equal({ id: 1, text: 'one', tag: 'first' });
  });
});
