/**
 * Fixed-window counters for rate limiting, in a service's own SQL store or in Redis. Counting
 * is atomic in both, so concurrent attempts can never slip under a limit together, and every
 * replica of the service counts in the same place.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
// Types only: the gateway loads this lib for Redis, and must not load knex with it.
import type { Dialect, Knex } from '@storefront/db';

export interface WindowCount {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Epoch milliseconds at which the window ends and the count starts again. */
  resetAt: number;
}

export interface WindowCounters {
  /** Counts one hit; a key whose window has ended starts a new one of `windowMs`. */
  hit(key: string, windowMs: number, now: number): Promise<WindowCount>;
  /** The current window of a key without counting a hit; undefined when it has none running. */
  peek(key: string, now: number): Promise<WindowCount | undefined>;
  /** Takes back one hit, e.g. an attempt that turned out to succeed. */
  undo(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  /** Deletes counters whose window has ended; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

/** The table a service's migration creates for its counters. */
export const COUNTER_TABLE = 'rate_limit_counters';

/** Creates the counters' table; called by each service's own migration in its own schema. */
export async function createCounterTable(db: Knex): Promise<void> {
  await db.schema.createTable(COUNTER_TABLE, (t) => {
    t.string('counter_key', 100).primary();
    t.integer('hits').notNullable();
    t.bigInteger('window_ends_at').notNullable().index();
  });
}

/**
 * Runs one whole transaction again when MySQL rolled it back as a deadlock victim (as
 * `retryOnDeadlock` in @storefront/db, kept here so the gateway never loads knex with this lib).
 */
async function retryDeadlockVictim<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code !== 'ER_LOCK_DEADLOCK' || attempt >= attempts) throw error;
    }
  }
}

export class SqlWindowCounters implements WindowCounters {
  constructor(private readonly db: Knex) {}

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    // Concurrent upserts of a key not yet stored can deadlock on MySQL; the victim counted nothing.
    return retryDeadlockVictim(() =>
      this.db.transaction(async (trx) => {
        // One upsert decides "new window or one more hit" under the row's lock; both dialects
        // read bare column names in the update as the existing row's values.
        await trx(COUNTER_TABLE)
          .insert({ counter_key: key, hits: 1, window_ends_at: now + windowMs })
          .onConflict('counter_key')
          .merge({
            hits: trx.raw('CASE WHEN ?? <= ? THEN 1 ELSE ?? + 1 END', ['window_ends_at', now, 'hits']),
            window_ends_at: trx.raw('CASE WHEN ?? <= ? THEN ? ELSE ?? END', [
              'window_ends_at',
              now,
              now + windowMs,
              'window_ends_at',
            ]),
          });
        const row = await trx(COUNTER_TABLE).where({ counter_key: key }).first('hits', 'window_ends_at');
        return { hits: Number(row.hits), resetAt: Number(row.window_ends_at) };
      }),
    );
  }

  async peek(key: string, now: number): Promise<WindowCount | undefined> {
    const row = await this.db(COUNTER_TABLE)
      .where({ counter_key: key })
      .andWhere('window_ends_at', '>', now)
      .first('hits', 'window_ends_at');
    return row ? { hits: Number(row.hits), resetAt: Number(row.window_ends_at) } : undefined;
  }

  async undo(key: string): Promise<void> {
    await this.db(COUNTER_TABLE).where({ counter_key: key }).andWhere('hits', '>', 0).decrement('hits', 1);
  }

  async clear(key: string): Promise<void> {
    await this.db(COUNTER_TABLE).where({ counter_key: key }).del();
  }

  async purgeExpired(now: number): Promise<number> {
    return this.db(COUNTER_TABLE).where('window_ends_at', '<=', now).del();
  }
}

// KEYS[1] counter; ARGV now, window length, end of a new window. The window end is kept in the
// hash (not derived from the TTL) so the caller's clock decides, as it does for the SQL store;
// the TTL only cleans up.
const HIT_SCRIPT = `
local resetAt = tonumber(redis.call('HGET', KEYS[1], 'resetAt'))
if resetAt == nil or resetAt <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'hits', 1, 'resetAt', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, tonumber(ARGV[3])}
end
return {redis.call('HINCRBY', KEYS[1], 'hits', 1), resetAt}
`;

const UNDO_SCRIPT = `
local hits = tonumber(redis.call('HGET', KEYS[1], 'hits'))
if hits ~= nil and hits > 0 then redis.call('HINCRBY', KEYS[1], 'hits', -1) end
return 0
`;

/**
 * A Lua script sent by its digest (EVALSHA): the text goes over the wire and through Redis's
 * compiler only when Redis does not have it yet (after a restart or a SCRIPT FLUSH).
 */
class RedisScript {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, key: string, ...args: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, 1, key, ...args);
    } catch (error) {
      if (!(error as Error).message?.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.lua, 1, key, ...args);
    }
  }
}

const HIT = new RedisScript(HIT_SCRIPT);
const UNDO = new RedisScript(UNDO_SCRIPT);

export class RedisWindowCounters implements WindowCounters {
  /** `redis` carries the deployment's key prefix (ioredis `keyPrefix`). */
  constructor(private readonly redis: Redis) {}

  private key(key: string): string {
    return `attempts:${key}`;
  }

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const [hits, resetAt] = (await HIT.run(this.redis, this.key(key), now, windowMs, now + windowMs)) as [
      number,
      number,
    ];
    return { hits: Number(hits), resetAt: Number(resetAt) };
  }

  async peek(key: string, now: number): Promise<WindowCount | undefined> {
    const [hits, resetAt] = await this.redis.hmget(this.key(key), 'hits', 'resetAt');
    if (hits === null || resetAt === null || Number(resetAt) <= now) return undefined;
    return { hits: Number(hits), resetAt: Number(resetAt) };
  }

  async undo(key: string): Promise<void> {
    await UNDO.run(this.redis, this.key(key));
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  async purgeExpired(): Promise<number> {
    // Every counter key carries a TTL of its window; Redis expires them itself.
    return 0;
  }
}

/**
 * Counters in this process's memory, for the embedded SQLite store, where every app runs as
 * exactly one process (several replicas on SQLite are refused at start): a count there is
 * as shared as it can be, and one SQL write transaction per counted request would cost more
 * than the request it guards. Counts start again when the process restarts.
 */
export class MemoryWindowCounters implements WindowCounters {
  private readonly windows = new Map<string, WindowCount>();

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const current = this.windows.get(key);
    const next =
      current && current.resetAt > now
        ? { hits: current.hits + 1, resetAt: current.resetAt }
        : { hits: 1, resetAt: now + windowMs };
    this.windows.set(key, next);
    return next;
  }

  async peek(key: string, now: number): Promise<WindowCount | undefined> {
    const current = this.windows.get(key);
    return current && current.resetAt > now ? current : undefined;
  }

  async undo(key: string): Promise<void> {
    const current = this.windows.get(key);
    if (current && current.hits > 0) this.windows.set(key, { ...current, hits: current.hits - 1 });
  }

  async clear(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async purgeExpired(now: number): Promise<number> {
    let purged = 0;
    for (const [key, { resetAt }] of this.windows) {
      if (resetAt <= now) {
        this.windows.delete(key);
        purged += 1;
      }
    }
    return purged;
  }
}

/**
 * Where a service counts: Redis when configured; else its SQL store when that is MySQL, which
 * every replica shares; else (embedded SQLite, one process) memory.
 */
export function windowCountersFor(db: Knex, dialect: Dialect, redis: Redis | undefined): WindowCounters {
  if (redis) return new RedisWindowCounters(redis);
  return dialect === 'mysql' ? new SqlWindowCounters(db) : new MemoryWindowCounters();
}
