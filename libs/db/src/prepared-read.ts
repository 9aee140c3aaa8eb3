/**
 * The busiest reads (a session's user, an account, the stock levels) run below knex. knex builds such a read once, when
 * its store is made; each call then runs that SQL as a prepared statement: on SQLite one compiled once per connection
 * and called synchronously, and on MySQL mysql2's `execute` (a server-side prepared statement the connection keeps).
 * What knex spends on every call, building and compiling the query, its promise chain and result handling, is left out
 * (a PK read: about 20 µs through knex, 4 µs here), and so is knex's span: a sampled trace still gets a SQL span
 * (inSqlSpan), an unsampled request none. A call still emits knex's 'query' event, so whatever counts a store's
 * statements counts these too.
 */
import type { Knex } from 'knex';
import { inSqlSpan } from '@storefront/telemetry';

/** What a prepared read takes: values only, never SQL fragments. */
export type ReadParam = string | number;
export type ReadRow = Record<string, unknown>;

/**
 * A read built once and run as a prepared statement with the values it is called with; `Row` is what the caller knows
 * its rows to be.
 */
export type PreparedRead<Params extends ReadParam[], Row extends object = ReadRow> = (
  ...params: Params
) => Promise<Row[]>;

/** better-sqlite3's connection, as far as a read needs it. */
interface SqliteConnection {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
}

interface SqliteStatement {
  all(bindings: ReadParam[]): object[];
}

/** mysql2's callback connection, as far as a read needs it. */
interface MysqlConnection {
  execute(sql: string, values: ReadParam[], callback: (error: Error | null, rows: object[]) => void): void;
}

/** The single connection of each SQLite store `connect` opened, once its pool has created it. */
const sqliteConnections = new WeakMap<Knex, { connection?: SqliteConnection }>();

/** Called by `connect` for a SQLite store: `holder.connection` is the pool's one connection once made. */
export function registerSqliteConnection(db: Knex, holder: { connection?: unknown }): void {
  sqliteConnections.set(db, holder as { connection?: SqliteConnection });
}

/**
 * `build` makes the read with knex from its parameters, which it may only pass on as values;
 * every other value must be part of the SQL text (`limit(n, { skipBinding: true })`). It must
 * be a plain select (not `first` or `pluck`): the answer is its rows. Thrown at once for a query
 * that breaks either rule.
 */
export function preparedRead<Params extends ReadParam[], Row extends object = ReadRow>(
  db: Knex,
  build: (...params: Params) => Knex.QueryBuilder,
): PreparedRead<Params, Row> {
  const markers = Array.from({ length: build.length }, (_, index) => `\u0000prepared-read-parameter-${index}`);
  const query = build(...(markers as Params)).toSQL();
  // first, pluck and the like shape knex's answer; this answers rows, as a select does.
  if (query.method !== 'select') throw new Error(`a prepared read must be a plain select, not ${query.method}`);
  const { sql, bindings } = query.toNative();
  const order = bindings.map((binding) => {
    const index = markers.indexOf(binding as string);
    if (index < 0)
      throw new Error(
        `a prepared read may bind only its parameters; put ${JSON.stringify(binding)} in its SQL: ${sql}`,
      );
    return index;
  });
  const valuesOf = (params: Params) => order.map((index) => params[index]!);
  const announce = (values: ReadParam[]) => db.client.emit('query', { sql, bindings: values, method: 'select' });

  if (db.client.config.client === 'mysql2') {
    return async (...params) => {
      const values = valuesOf(params);
      const connection = (await db.client.acquireConnection()) as MysqlConnection;
      try {
        announce(values);
        return await inSqlSpan(
          'mysql',
          'select',
          sql,
          () =>
            new Promise<Row[]>((resolve, reject) =>
              connection.execute(sql, values, (error, rows) => (error ? reject(error) : resolve(rows as Row[]))),
            ),
        );
      } finally {
        await db.client.releaseConnection(connection);
      }
    };
  }

  const holder = sqliteConnections.get(db);
  // Compiling the statement costs more than running a PK read, so it is compiled once per connection (the pool
  // replaces its connection only when the old one failed).
  let prepared: { connection: SqliteConnection; statement: SqliteStatement } | undefined;
  const statementOn = (connection: SqliteConnection) => {
    if (prepared?.connection !== connection) prepared = { connection, statement: connection.prepare(sql) };
    return prepared.statement;
  };
  return async (...params) => {
    const connection = holder?.connection;
    // Inside a transaction the connection would read that transaction's uncommitted writes:
    // then the read waits for the connection through knex, as every other statement does.
    if (!connection?.open || connection.inTransaction) return (await build(...params)) as Row[];
    const values = valuesOf(params);
    announce(values);
    return inSqlSpan('sqlite', 'select', sql, () => statementOn(connection).all(values) as Row[]);
  };
}
