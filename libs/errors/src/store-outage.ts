/**
 * Which failures mean a store (MySQL/MariaDB, SQLite's connection pool, Redis) cannot be reached
 * right now, as opposed to a bug: those become a 503 with Retry-After that clients may retry,
 * never a 500. Only connection-level failures count; a constraint violation or a bad query stays
 * an internal error.
 */
import { AppError } from './app-error';

/** Seconds a client is asked to wait after a store outage: long enough for a reconnect or a failover. */
export const STORE_OUTAGE_RETRY_AFTER_SECONDS = 5;

/** Socket and driver codes of a connection refused, lost, reset or timed out (node, mysql2). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'SQLITE_BUSY',
]);

/** Error names of a pool that could not hand out a connection in time (knex) or a Redis that gave up (ioredis). */
const OUTAGE_NAMES = new Set(['KnexTimeoutError', 'MaxRetriesPerRequestError']);

/** ioredis messages for a connection that is closed, not writable, or a command that got no answer. */
const REDIS_OUTAGE_MESSAGES = [/^Connection is closed\.?$/, /^Stream isn't writeable/, /^Command timed out$/];

const MAX_CAUSE_DEPTH = 3;

/** Whether the error (or what caused it) is a store that cannot be reached now. */
export function isStoreOutage(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (OUTAGE_NAMES.has(current.name) || OUTAGE_NAMES.has(current.constructor.name)) return true;
    if (REDIS_OUTAGE_MESSAGES.some((pattern) => pattern.test(current instanceof Error ? current.message : '')))
      return true;
    current = current.cause;
  }
  return false;
}

/** The 503 a store outage answers, naming the service whose store is down but nothing about where it lives. */
export function storeUnavailable(service: string): AppError {
  return new AppError(
    'unavailable',
    'service_unavailable',
    `The ${service} service cannot reach its data store; try again shortly`,
    STORE_OUTAGE_RETRY_AFTER_SECONDS,
  );
}

/** MySQL's answers to lock contention: a transaction chosen as a deadlock victim, or a lock wait that ran out. */
const LOCK_CONTENTION_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/**
 * Whether the error is lock contention in the store: nothing was written by the statement, and the
 * same request may well succeed at once. Busy moments are not bugs, so these are never a 500.
 */
export function isLockContention(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && LOCK_CONTENTION_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

/** The 503 of lock contention that outlasted the store's own retries: try again in a second. */
export function storeBusy(service: string): AppError {
  return new AppError('unavailable', 'service_unavailable', `The ${service} service is busy; try again shortly`, 1);
}
