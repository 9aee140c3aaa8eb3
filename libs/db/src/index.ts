/**
 * One way to reach a service's own store: knex on SQLite (embedded default, a file per service
 * under DATA_DIR) or MySQL/MariaDB (a database per service), with the same migrations on both.
 */
import path from 'node:path';
import fs from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import { readCommon, redactUrl, type EnvReader, type CommonConfig } from '@storefront/config';
import { observeDbPool } from '@storefront/telemetry';
import { registerSqliteConnection } from './prepared-read';
import { beginTransactionsImmediately } from './sqlite-begin';

export type { Knex } from 'knex';
export { preparedRead, type PreparedRead, type ReadParam, type ReadRow } from './prepared-read';
export {
  appliedMigrationNames,
  copyLiveSqliteStores,
  sqliteIntegrity,
  sqliteStoreFile,
  type BarrierPatience,
  type StoreCopyTarget,
} from './sqlite-files';
export {
  batchedTransaction,
  type Batch,
  type BatchStatement,
  type BatchedQueryEvent,
  type StatementResult,
} from './batched-transaction';
export type Dialect = 'sqlite' | 'mysql';

export interface StoreConfig {
  service: string;
  /** Where the SQLite file lives when no MySQL URL is given. */
  dataDir: string;
  /** Full URL including the database name; unset means SQLite. */
  mysqlUrl?: string;
}

/**
 * `<SERVICE>_MYSQL_URL` names the service's database in full; otherwise `MYSQL_URL` names a
 * server and the database is `storefront_<service>` on it.
 */
export function readStoreConfig(env: EnvReader, service: string, common: CommonConfig): StoreConfig {
  const own = env.optionalUrl(`${service.toUpperCase()}_MYSQL_URL`, ['mysql:']);
  const server = env.optionalUrl('MYSQL_URL', ['mysql:']);
  const mysqlUrl = own ?? (server ? withDatabase(server, `storefront_${service}`) : undefined);
  return { service, dataDir: common.dataDir, mysqlUrl };
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The store of a serving app: statements that stall are cut off (see STORE_STALL_TIMEOUT_MS). */
export function openDatabase(config: StoreConfig): Knex {
  const db = connect(config, STORE_STALL_TIMEOUT_MS);
  observeDbPool(db, config.service);
  return db;
}

/**
 * A store that does not answer must fail a call well inside the callers' 5 s RPC deadline, so the
 * answer is a 503 the client may retry rather than a gateway timeout: a new MySQL connection gets
 * 2 s to say hello, waiting for a pooled connection gives up after 3 s, and a serving connection
 * whose statement gets no byte back for 3 s is dropped (a hung server; also a lock wait that long).
 */
export const STORE_CONNECT_TIMEOUT_MS = 2_000;
export const STORE_ACQUIRE_TIMEOUT_MS = 3_000;
export const STORE_STALL_TIMEOUT_MS = 3_000;

function connect(config: StoreConfig, stallTimeoutMs?: number): Knex {
  if (config.mysqlUrl) {
    return knexFactory({
      client: 'mysql2',
      // Several statements in one packet are what batched transactions send (decision 0998); every
      // SQL text is compiled by knex with bound values, so no value can add a statement of its own.
      connection: {
        uri: config.mysqlUrl,
        supportBigNumbers: true,
        timezone: 'Z',
        charset: 'utf8mb4',
        connectTimeout: STORE_CONNECT_TIMEOUT_MS,
        multipleStatements: true,
      } as Knex.MySql2ConnectionConfig,
      pool: {
        min: 0,
        max: 10,
        afterCreate(connection: MysqlConnection, done: (error: Error | null, connection: unknown) => void) {
          if (stallTimeoutMs !== undefined) dropWhenStalled(connection, stallTimeoutMs);
          done(null, connection);
        },
      },
      acquireConnectionTimeout: STORE_ACQUIRE_TIMEOUT_MS,
    });
  }
  // Prepared reads use the pool's one connection directly (see prepared-read.ts).
  const sqlite: { connection?: SqliteConnection } = {};
  const db = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: privateDatabaseFile(config.dataDir, config.service) },
    useNullAsDefault: true,
    // better-sqlite3 is synchronous: one connection serialises transactions, which is what
    // makes SQLite's read-check-write sections atomic without row locks.
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
        beginTransactionsImmediately(connection);
        reusePreparedStatements(connection);
        connection.pragma('journal_mode = WAL');
        connection.pragma('synchronous = NORMAL');
        connection.pragma('busy_timeout = 5000');
        connection.pragma('foreign_keys = ON');
        sqlite.connection = connection;
        done(null, connection);
      },
    },
    acquireConnectionTimeout: STORE_ACQUIRE_TIMEOUT_MS,
  });
  registerSqliteConnection(db, sqlite);
  return db;
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): unknown;
}

/** Distinct statements kept per connection; the services issue a few dozen shapes of query. */
const PREPARED_STATEMENTS_KEPT = 500;

/**
 * knex prepares every query again on better-sqlite3, which costs about as much as running it.
 * A statement is reusable (knex runs it synchronously to the end), so the connection keeps the
 * ones it prepared, by SQL text; SQLite prepares a kept one again by itself after a schema change.
 */
function reusePreparedStatements(connection: SqliteConnection): void {
  const prepare = connection.prepare.bind(connection);
  const kept = new Map<string, unknown>();
  connection.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      // Oldest first out: a Map iterates in insertion order.
      if (kept.size >= PREPARED_STATEMENTS_KEPT) kept.delete(kept.keys().next().value!);
      kept.set(sql, statement);
    }
    return statement;
  };
}

/** The parts of a mysql2 connection the stall guard needs: its socket and the command it waits on. */
interface MysqlConnection {
  stream: import('node:net').Socket;
  _command: unknown;
}

/**
 * Destroys the connection's socket when a statement has waited `ms` without a byte from the
 * server; the statement then fails with ETIMEDOUT (a store outage) and the pool drops the
 * connection. An idle pooled connection is left alone.
 */
function dropWhenStalled(connection: MysqlConnection, ms: number): void {
  connection.stream.setTimeout(ms);
  connection.stream.on('timeout', () => {
    if (!connection._command) return;
    connection.stream.destroy(Object.assign(new Error(`MySQL sent nothing for ${ms} ms`), { code: 'ETIMEDOUT' }));
  });
}

const PRIVATE_DIRECTORY_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
/** The database and the files SQLite keeps beside it (WAL mode, or a rollback journal). */
const SQLITE_FILE_SUFFIXES = ['', '-wal', '-shm', '-journal'];

/**
 * The service's SQLite file under `dataDir`, readable by this user only whatever the umask: it
 * holds password hashes and personal data. The directory becomes 0700 and the file is created
 * 0600 before SQLite opens it (SQLite gives its -wal and -shm files the database file's mode);
 * files an earlier run left with looser modes are tightened.
 */
function privateDatabaseFile(dataDir: string, service: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  fs.chmodSync(dataDir, PRIVATE_DIRECTORY_MODE);
  const file = path.join(dataDir, `${service}.sqlite`);
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const suffix of SQLITE_FILE_SUFFIXES) {
    try {
      fs.chmodSync(`${file}${suffix}`, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return file;
}

export function dialectOf(db: Knex): Dialect {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

/** Row lock for a read-check-write inside a transaction; SQLite's single connection already serialises. */
export function forUpdate<T extends Knex.QueryBuilder>(query: T, db: Knex): T {
  return dialectOf(db) === 'mysql' ? (query.forUpdate() as T) : query;
}

/** Aggregates come back as strings from MySQL (DECIMAL) and numbers from SQLite. */
export function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${String(value)}`);
  return n;
}

/** Attempts of a transaction MySQL picked as a deadlock victim, the first included. */
export const DEADLOCK_ATTEMPTS = 3;

/**
 * Runs `work` (one whole transaction) again when MySQL rolled it back as a deadlock victim, which
 * is then correct: nothing of it was written. A lock wait that ran out is not retried here.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = DEADLOCK_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code !== 'ER_LOCK_DEADLOCK' || attempt >= attempts) throw error;
    }
  }
}

/** Whether an error is a unique-constraint violation on either backend. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number };
  return (
    e?.code === 'ER_DUP_ENTRY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

export interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/** Creates the MySQL database when needed, then applies the service's migrations in name order. */
export async function migrateToLatest(config: StoreConfig, migrations: Record<string, Migration>): Promise<string[]> {
  if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
  // No stall limit: a migration may legitimately run one long statement.
  const db = connect(config);
  try {
    return await applyMigrations(db, migrations);
  } finally {
    await db.destroy();
  }
}

/** The settings a service's `migrate` command reads: the common ones and its store, nothing else. */
export interface MigrateConfig extends CommonConfig {
  store: StoreConfig;
}

/** The `migrate` command of a service with a store, in the shape `runMain` takes. */
export function storeMigrations(service: string, migrations: Record<string, Migration>) {
  return {
    readConfig(env: EnvReader): MigrateConfig {
      const common = readCommon(env);
      return { ...common, store: readStoreConfig(env, service, common) };
    },
    run: (config: MigrateConfig) => migrateToLatest(config.store, migrations),
  };
}

export async function applyMigrations(db: Knex, migrations: Record<string, Migration>): Promise<string[]> {
  const source: Knex.MigrationSource<string> = {
    getMigrations: async () => Object.keys(migrations).sort(),
    getMigrationName: (name) => name,
    getMigration: async (name) => migrations[name]!,
  };
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}

/** Where knex records applied migrations (its default name). */
const MIGRATIONS_TABLE = 'knex_migrations';

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

/** Which of the service's migrations the store has and which it still needs; changes nothing. */
export async function migrationStatus(db: Knex, migrations: Record<string, Migration>): Promise<MigrationStatus> {
  const recorded = await recordedMigrations(db);
  const known = Object.keys(migrations).sort();
  return {
    applied: recorded.filter((name) => known.includes(name)),
    pending: known.filter((name) => !recorded.includes(name)),
  };
}

/** MySQL's answer when the service's database was never created. */
const UNKNOWN_DATABASE = 1049;

async function recordedMigrations(db: Knex): Promise<string[]> {
  try {
    // Read by hand: knex's own list creates its bookkeeping tables, which a status check (or a
    // runtime database user without DDL rights) must not do.
    return (await db.schema.hasTable(MIGRATIONS_TABLE)) ? await db(MIGRATIONS_TABLE).orderBy('id').pluck('name') : [];
  } catch (error) {
    // A database nobody created yet has nothing applied; `migrate` creates it.
    if ((error as { errno?: number }).errno === UNKNOWN_DATABASE) return [];
    throw error;
  }
}

/** Thrown when a store is behind its service's migrations; the message says what to run. */
export class SchemaNotMigrated extends Error {
  constructor(
    readonly service: string,
    readonly pending: string[],
  ) {
    super(
      `the ${service} database is not migrated (${pending.length} pending: ${pending.join(', ')}); ` +
        `run \`npm run migrate\` (or the image's \`migrate\` command) against it first`,
    );
  }
}

/**
 * Refuses a store that misses migrations, before anything reads a table that may not exist:
 * MySQL deployments migrate in a separate step and a service must not start half-way.
 */
export async function requireMigrated(db: Knex, service: string, migrations: Record<string, Migration>): Promise<void> {
  const { pending } = await migrationStatus(db, migrations);
  if (pending.length > 0) throw new SchemaNotMigrated(service, pending);
}

/**
 * Opens a service's store for serving. With `migrate` (the embedded SQLite default, tests) it is
 * brought up to date first; otherwise (MySQL, migrated in a separate step) a store that misses
 * migrations is refused with SchemaNotMigrated rather than failing later on a missing table.
 */
export async function openServiceStore(
  config: StoreConfig,
  migrations: Record<string, Migration>,
  { migrate }: { migrate: boolean },
): Promise<Knex> {
  if (migrate && config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
  // Asked before the pool connects, which would fail on a missing database with a driver error.
  if (!migrate && config.mysqlUrl && !(await mysqlDatabaseExists(config.mysqlUrl)))
    throw new SchemaNotMigrated(config.service, Object.keys(migrations).sort());
  const db = openDatabase(config);
  try {
    if (migrate) await applyMigrations(db, migrations);
    else await requireMigrated(db, config.service, migrations);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

export async function ensureMysqlDatabase(mysqlUrl: string): Promise<void> {
  await onMysqlServer(mysqlUrl, async (server, database) => {
    // Binary collation gives MySQL the same exact-match semantics as SQLite.
    await server.raw('CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_bin', [database]);
  });
}

async function mysqlDatabaseExists(mysqlUrl: string): Promise<boolean> {
  return onMysqlServer(
    mysqlUrl,
    async (server, database) =>
      (await server('information_schema.schemata').where('schema_name', database).first('schema_name')) !== undefined,
  );
}

/** Runs `work` on a connection to the server of `mysqlUrl`, outside its database (which may not exist). */
async function onMysqlServer<T>(mysqlUrl: string, work: (server: Knex, database: string) => Promise<T>): Promise<T> {
  const url = new URL(mysqlUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(database)) {
    throw new Error(`database name in ${redactUrl(mysqlUrl)} must be letters, digits and underscores`);
  }
  url.pathname = '/';
  const server = knexFactory({
    client: 'mysql2',
    connection: { uri: url.toString() } as Knex.MySql2ConnectionConfig,
    pool: { min: 0, max: 1 },
  });
  try {
    return await work(server, database);
  } finally {
    await server.destroy();
  }
}

/** A store check for health probes. */
export async function ping(db: Knex): Promise<void> {
  await db.raw('select 1');
}
