/**
 * How the embedded stores open a transaction. A plain BEGIN takes SQLite's write lock only at the transaction's first
 * write, and a read transaction that cannot take it then fails with SQLITE_BUSY at once, without waiting busy_timeout.
 * Another process may hold the lock for a few milliseconds (a backup's barrier, an ops command), so every transaction
 * of a store's one connection takes it as it begins, where busy_timeout applies; in-process nothing changes, the one
 * connection serialises already.
 */
export const SQLITE_BEGIN = 'BEGIN IMMEDIATE';

/** How knex opens a transaction on SQLite. */
const KNEX_SQLITE_BEGIN = 'BEGIN;';

/** Makes the transactions knex opens on `connection` (better-sqlite3's) begin as SQLITE_BEGIN. */
export function beginTransactionsImmediately(connection: { prepare(sql: string): unknown }): void {
  const prepare = connection.prepare.bind(connection);
  connection.prepare = (sql: string) => prepare(sql === KNEX_SQLITE_BEGIN ? SQLITE_BEGIN : sql);
}
