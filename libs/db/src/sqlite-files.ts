/**
 * A service's SQLite store as a file, for backups (decision 1270): a consistent copy of a live store, and what a copy
 * holds (its applied migrations, SQLite's own integrity verdict), read without knex.
 */
import path from 'node:path';
import Database from 'better-sqlite3';

/** Where the embedded default keeps `service`'s store under DATA_DIR. */
export const sqliteStoreFile = (dataDir: string, service: string) => path.join(dataDir, `${service}.sqlite`);

/**
 * Copies a store its service may be writing at the same moment: `VACUUM INTO` reads it in one transaction, so the
 * copy is the store as of one instant, compacted, and WAL lets the service's writes go on meanwhile.
 */
export function copyLiveSqliteStore(source: string, target: string): void {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

/** The migrations applied to a store file, oldest first. */
export function appliedMigrationNames(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select name from knex_migrations order by id').all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
  } finally {
    db.close();
  }
}

/** SQLite's `integrity_check` of a store file: `ok`, or what it found wrong (also when the file is no database). */
export function sqliteIntegrity(file: string): string {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return String(db.pragma('integrity_check', { simple: true }));
    } finally {
      db.close();
    }
  } catch (error) {
    return (error as Error).message;
  }
}
