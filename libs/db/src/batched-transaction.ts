/**
 * A transaction whose statements reach the server in as few round trips as its decisions allow.
 * Each `send` carries the statements that can go together (nothing between them depends on an
 * answer): on MySQL one multi-statement packet, which the server runs in order and stops at the
 * first that fails; on SQLite one statement after another on the store's single connection.
 * BEGIN rides with the first send and COMMIT with the last, so a transaction that decides once
 * costs two round trips however many statements it has, where knex's transactions cost one per
 * statement plus BEGIN and COMMIT (decision 0998).
 *
 * Statements are knex builders, compiled by knex with bound values: no SQL text is taken from a
 * caller, so the multi-statement packets carry nothing a value could break out of. Each
 * statement still emits knex's 'query' event (with the send it went in), and a sampled trace
 * gets one SQL span per send.
 */
import type { Knex } from 'knex';
import { inSqlSpan } from '@storefront/telemetry';
import { SQLITE_BEGIN } from './sqlite-begin';

/** A statement a batch sends: a query or raw statement built with knex, values bound. */
export type BatchStatement = Knex.QueryBuilder | Knex.Raw;

/** What one statement answered: the rows of a read, the rows changed by a write. */
export interface StatementResult<Row extends object = Record<string, unknown>> {
  rows: Row[];
  affectedRows: number;
  /** The auto-increment value an INSERT of one row took; absent or 0 for other statements. */
  insertId?: number;
}

export interface Batch {
  /**
   * Sends these statements in one round trip, in order; the first that fails stops the rest and rejects the send, after
   * which the transaction only rolls back.
   */
  send(...statements: BatchStatement[]): Promise<StatementResult[]>;
  /** Sends these statements and COMMIT in one round trip; the transaction is over once it answers. */
  commit(...statements: BatchStatement[]): Promise<StatementResult[]>;
}

/** The knex 'query' event of a batched statement: the send it went in tells round trips apart. */
export interface BatchedQueryEvent {
  sql: string;
  bindings: readonly unknown[];
  method: 'raw';
  /** Statements with the same number went to the server together. */
  roundTrip: number;
}

interface Compiled {
  sql: string;
  bindings: unknown[];
}

/** mysql2's callback connection with `multipleStatements` on, as far as a batch needs it. */
interface MysqlConnection {
  query(sql: string, values: unknown[], callback: (error: Error | null, results: unknown) => void): void;
}

/** better-sqlite3's connection, as far as a batch needs it. */
interface SqliteConnection {
  prepare(sql: string): {
    reader: boolean;
    all(bindings: unknown[]): object[];
    run(bindings: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
}

const BEGIN: Record<'mysql' | 'sqlite', Compiled> = {
  mysql: { sql: 'BEGIN', bindings: [] },
  sqlite: { sql: SQLITE_BEGIN, bindings: [] },
};
const COMMIT: Compiled = { sql: 'COMMIT', bindings: [] };
const ROLLBACK: Compiled = { sql: 'ROLLBACK', bindings: [] };

let roundTrips = 0;

/**
 * Runs `work` as one transaction on one pooled connection. A send that fails, or `work`
 * throwing, rolls the transaction back; `work` returning without `commit` commits on its own
 * round trip. The connection goes back to the pool either way (a broken one is dropped by the
 * pool's validation, as for knex's own transactions).
 */
export async function batchedTransaction<T>(db: Knex, work: (batch: Batch) => Promise<T>): Promise<T> {
  const mysql = db.client.config.client === 'mysql2';
  const run = mysql ? runOnMysql : runOnSqlite;
  const begin = BEGIN[mysql ? 'mysql' : 'sqlite'];
  const connection: unknown = await db.client.acquireConnection();
  let begun = false;
  let ended = false;
  // After a failed send MySQL may have rolled the transaction back already (a deadlock victim), so
  // a later send would run outside it: only the rollback may follow.
  let failed = false;
  const exchange = async (compiled: Compiled[], commits: boolean): Promise<StatementResult[]> => {
    if (ended) throw new Error('this transaction has already ended');
    if (failed) throw new Error('a send of this transaction failed; it can only be rolled back');
    const packet = [...(begun ? [] : [begin]), ...compiled, ...(commits ? [COMMIT] : [])];
    begun = true;
    const roundTrip = (roundTrips += 1);
    for (const { sql, bindings } of packet)
      db.client.emit('query', { sql, bindings, method: 'raw', roundTrip } satisfies BatchedQueryEvent);
    const sql = packet.map((statement) => statement.sql).join(';\n');
    let results: StatementResult[];
    try {
      results = await inSqlSpan(mysql ? 'mysql' : 'sqlite', packet.length === 1 ? 'statement' : 'batch', sql, () =>
        run(connection, sql, packet),
      );
    } catch (error) {
      failed = true;
      throw error;
    }
    // Only a COMMIT that ran ends the transaction: a statement before it that failed leaves it open, to be rolled back.
    if (commits) ended = true;
    // BEGIN's and COMMIT's answers are nobody's business.
    return results.slice(packet[0] === begin ? 1 : 0, commits ? -1 : undefined);
  };
  const batch: Batch = {
    send: (...statements) =>
      exchange(
        statements.map((statement) => compile(statement, mysql)),
        false,
      ),
    commit: (...statements) =>
      exchange(
        statements.map((statement) => compile(statement, mysql)),
        true,
      ),
  };
  try {
    const result = await work(batch);
    if (!ended) await batch.commit();
    return result;
  } catch (error) {
    if (begun && !ended) {
      ended = true;
      // A failed send may leave the connection unusable; its own error is the one that matters.
      await run(connection, ROLLBACK.sql, [ROLLBACK]).catch(() => undefined);
    }
    throw error;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

function compile(statement: BatchStatement, mysql: boolean): Compiled {
  const compiled = statement.toSQL();
  // A builder that compiles to several statements (none of the stores' do) would split its bindings.
  if (Array.isArray(compiled)) throw new Error('a batched statement must compile to one SQL statement');
  const { sql, bindings } = compiled.toNative();
  return { sql, bindings: mysql ? [...bindings] : bindings.map(sqliteValue) };
}

/** As knex's better-sqlite3 client binds them: SQLite has no booleans or dates. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return Number(value);
  if (value instanceof Date) return value.valueOf();
  return value;
}

/** `sql` is the packet's statements joined, as one multi-statement text. */
function runOnMysql(connection: unknown, sql: string, packet: Compiled[]): Promise<StatementResult[]> {
  const values = packet.flatMap((statement) => statement.bindings);
  return new Promise((resolve, reject) => {
    (connection as MysqlConnection).query(sql, values, (error, results) => {
      if (error) return reject(error);
      // One statement answers its result, several an array of theirs.
      const each = packet.length === 1 ? [results] : (results as unknown[]);
      resolve(each.map(mysqlResult));
    });
  });
}

function mysqlResult(result: unknown): StatementResult {
  if (Array.isArray(result)) return { rows: result as Array<Record<string, unknown>>, affectedRows: 0, insertId: 0 };
  const { affectedRows, insertId } = result as { affectedRows: number; insertId: number };
  return { rows: [], affectedRows, insertId: Number(insertId) };
}

/**
 * better-sqlite3 is synchronous: the statements run to the end (or the first failure) before anything else can use the
 * connection.
 */
async function runOnSqlite(connection: unknown, _sql: string, packet: Compiled[]): Promise<StatementResult[]> {
  return packet.map(({ sql, bindings }) => {
    const statement = (connection as SqliteConnection).prepare(sql);
    if (statement.reader)
      return { rows: statement.all(bindings) as Array<Record<string, unknown>>, affectedRows: 0, insertId: 0 };
    const { changes, lastInsertRowid } = statement.run(bindings);
    // SQLite keeps the last insert's rowid on the connection: only an INSERT of a row took one now.
    return {
      rows: [],
      affectedRows: changes,
      insertId: /^\s*insert/i.test(sql) && changes === 1 ? Number(lastInsertRowid) : 0,
    };
  });
}
