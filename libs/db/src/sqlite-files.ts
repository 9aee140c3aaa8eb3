/**
 * A service's SQLite store as a file, for backups (decisions 1270, 1345): consistent copies of live stores, and what a
 * copy holds (its applied migrations, SQLite's own integrity verdict), read without knex.
 */
import path from 'node:path';
import Database from 'better-sqlite3';

/** Where the embedded default keeps `service`'s store under DATA_DIR. */
export const sqliteStoreFile = (dataDir: string, service: string) => path.join(dataDir, `${service}.sqlite`);

export interface StoreCopyTarget {
  source: string;
  target: string;
}

/** How long the barrier waits for each store's writer, and how often it tries before it gives up. */
export interface BarrierPatience {
  lockWaitMs: number;
  attempts: number;
}

const BARRIER_PATIENCE: BarrierPatience = { lockWaitMs: 1_000, attempts: 5 };

/**
 * Copies live stores, which their services may be writing meanwhile, as of one instant across all of them (decision
 * 1345): a brief write barrier takes every store's write lock, starts a read transaction on each, and lets the writers
 * go again; each copy is then its read transaction's snapshot, copied page by page by SQLite's online backup while the
 * services write on. A workflow spanning stores is thus seen as a crash at that instant would leave it, never with one
 * store minutes ahead of another. The copies are left in rollback-journal mode, ready to be opened read-only.
 */
export async function copyLiveSqliteStores(
  copies: readonly StoreCopyTarget[],
  patience: BarrierPatience = BARRIER_PATIENCE,
): Promise<void> {
  const readers = copies.map(({ source }) => new Database(source, { fileMustExist: true }));
  try {
    await snapshotsBehindBarrier(
      copies.map(({ source }) => source),
      readers,
      patience,
    );
    for (const [index, reader] of readers.entries()) {
      const { target } = copies[index]!;
      await reader.backup(target);
      const copy = new Database(target);
      try {
        copy.pragma('journal_mode = DELETE');
      } finally {
        copy.close();
      }
    }
  } finally {
    for (const reader of readers) reader.close();
  }
}

/** Starts a read transaction on each reader while no store can commit; tries again when a writer holds a lock long. */
async function snapshotsBehindBarrier(
  sources: readonly string[],
  readers: readonly Database.Database[],
  { lockWaitMs, attempts }: BarrierPatience,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const gates: Database.Database[] = [];
    try {
      for (const source of sources) {
        const gate = new Database(source, { fileMustExist: true });
        gates.push(gate);
        gate.pragma(`busy_timeout = ${lockWaitMs}`);
        gate.exec('BEGIN IMMEDIATE');
      }
      for (const reader of readers) {
        reader.exec('BEGIN');
        reader.prepare('SELECT count(*) FROM sqlite_master').get();
      }
      return;
    } catch (error) {
      for (const reader of readers) if (reader.inTransaction) reader.exec('ROLLBACK');
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt === attempts) throw error;
    } finally {
      for (const gate of gates) {
        if (gate.inTransaction) gate.exec('ROLLBACK');
        gate.close();
      }
    }
    // A writer held its store's lock all that time: let it finish before the barrier closes again.
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
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
