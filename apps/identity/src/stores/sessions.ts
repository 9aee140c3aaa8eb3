/**
 * Where sessions live: identity's SQL store by default, Redis when REDIS_URL is set. Records
 * are keyed by the SHA-256 of the token, never the token. Both implementations treat a record
 * past its expiry as gone and delete it when they meet it, so an expired session is purged
 * on its next use whatever the clock says.
 */
import type { Redis } from 'ioredis';
import { preparedRead, type Knex, type PreparedRead } from '@storefront/db';

export interface SessionRecord {
  userId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  create(tokenHash: string, session: SessionRecord): Promise<void>;
  /** The live session, or undefined when unknown or expired (an expired one is deleted). */
  find(tokenHash: string, now: number): Promise<SessionRecord | undefined>;
  /** Moves the session's expiry (a sliding session); a session already gone stays gone. */
  renew(tokenHash: string, session: SessionRecord, now: number): Promise<void>;
  /** Whether a session was deleted. */
  delete(tokenHash: string): Promise<boolean>;
  /** Deletes every expired session; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

export class SqlSessionStore implements SessionStore {
  /** Every uncached session resolution: prepared below knex. */
  private readonly byTokenHash: PreparedRead<[tokenHash: string]>;

  /** Customers' sessions by default; staff sessions live in `staff_sessions`, keyed by `staff_id`. */
  constructor(
    private readonly db: Knex,
    private readonly table = 'sessions',
    private readonly ownerColumn = 'user_id',
  ) {
    this.byTokenHash = preparedRead(db, (tokenHash: string) =>
      db(table).where({ token_hash: tokenHash }).select(ownerColumn, 'created_at', 'expires_at'),
    );
  }

  async create(tokenHash: string, session: SessionRecord): Promise<void> {
    await this.db(this.table).insert({
      token_hash: tokenHash,
      [this.ownerColumn]: session.userId,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    });
  }

  async find(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const [row] = await this.byTokenHash(tokenHash);
    if (!row) return undefined;
    const session = {
      userId: row[this.ownerColumn] as string,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
    if (session.expiresAt > now) return session;
    await this.delete(tokenHash);
    return undefined;
  }

  async renew(tokenHash: string, session: SessionRecord): Promise<void> {
    await this.db(this.table).where({ token_hash: tokenHash }).update({ expires_at: session.expiresAt });
  }

  async delete(tokenHash: string): Promise<boolean> {
    return (await this.db(this.table).where({ token_hash: tokenHash }).del()) > 0;
  }

  async purgeExpired(now: number): Promise<number> {
    return this.db(this.table).where('expires_at', '<=', now).del();
  }
}

export class RedisSessionStore implements SessionStore {
  /**
   * `redis` carries the deployment's key prefix (ioredis `keyPrefix`); `kind` tells customers' sessions from staff's.
   */
  constructor(
    private readonly redis: Redis,
    private readonly kind = 'session',
  ) {}

  private key(tokenHash: string): string {
    return `${this.kind}:${tokenHash}`;
  }

  async create(tokenHash: string, session: SessionRecord): Promise<void> {
    // Redis forgets the session when its lifetime is over, so nothing needs sweeping.
    const ttlMs = Math.max(1, session.expiresAt - session.createdAt);
    await this.redis.set(this.key(tokenHash), JSON.stringify(session), 'PX', ttlMs);
  }

  async find(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const raw = await this.redis.get(this.key(tokenHash));
    if (raw === null) return undefined;
    const session = JSON.parse(raw) as SessionRecord;
    if (session.expiresAt > now) return session;
    await this.delete(tokenHash);
    return undefined;
  }

  async renew(tokenHash: string, session: SessionRecord, now: number): Promise<void> {
    // XX: only an existing key, so a session deleted meanwhile is not brought back.
    await this.redis.set(
      this.key(tokenHash),
      JSON.stringify(session),
      'PX',
      Math.max(1, session.expiresAt - now),
      'XX',
    );
  }

  async delete(tokenHash: string): Promise<boolean> {
    return (await this.redis.del(this.key(tokenHash))) > 0;
  }

  async purgeExpired(): Promise<number> {
    // Keys carry a TTL of the session's remaining lifetime; Redis expires them itself.
    return 0;
  }
}
