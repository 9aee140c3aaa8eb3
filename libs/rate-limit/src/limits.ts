/**
 * Fixed-window limits over WindowCounters: how a limit is configured, how a counter key is
 * named, and the one 429 every limit answers with.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@storefront/errors';
import type { EnvReader } from '@storefront/config';
import type { WindowCounters } from './window-counters';

/** At most `max` events per `windowSeconds`. */
export interface WindowLimit {
  max: number;
  windowSeconds: number;
}

/** `<PREFIX>_MAX` and `<PREFIX>_WINDOW_SECONDS`, with the given defaults. */
export function readWindowLimit(env: EnvReader, prefix: string, max: number, windowSeconds: number): WindowLimit {
  return {
    max: env.int(`${prefix}_MAX`, max, { min: 1, max: 1_000_000 }),
    windowSeconds: env.int(`${prefix}_WINDOW_SECONDS`, windowSeconds, { min: 1, max: 7 * 24 * 3600 }),
  };
}

/** Counter keys hash their subject, so emails, accounts and addresses are not kept in the limiter. */
export function counterKey(kind: string, subject: string): string {
  return `${kind}:${createHash('sha256').update(subject).digest('hex')}`;
}

/** The answer of every limit: 429 `too_many_attempts`, retry after at least a second. */
export function tooManyAttempts(detail: string, retryAfterSeconds: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError('rate_limited', 'too_many_attempts', `${detail}; try again in ${seconds} seconds`, seconds);
}

export interface LimitedKey {
  key: string;
  limit: WindowLimit;
}

/**
 * Counts one attempt on every key; 429 when any is over its limit, retrying after the latest
 * of those windows ends. `what` completes "Too many …".
 */
export async function countAttempt(
  counters: WindowCounters,
  keys: LimitedKey[],
  now: number,
  what: string,
): Promise<void> {
  const counts = await Promise.all(keys.map(({ key, limit }) => counters.hit(key, limit.windowSeconds * 1000, now)));
  const exceeded = counts.filter((count, i) => count.hits > keys[i]!.limit.max);
  if (exceeded.length === 0) return;
  throw tooManyAttempts(`Too many ${what}`, (Math.max(...exceeded.map((count) => count.resetAt)) - now) / 1000);
}
