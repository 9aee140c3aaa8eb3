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
  /** The owner's live sessions (a data export), oldest first. */
  ofOwner(ownerId: string, now: number): Promise<SessionRecord[]>;
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

  async ofOwner(ownerId: string, now: number): Promise<SessionRecord[]> {
    const rows = await this.db(this.table)
      .where(this.ownerColumn, ownerId)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'asc')
      .select('created_at', 'expires_at');
    return rows.map((row) => ({
      userId: ownerId,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    }));
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

  /** The owner's session keys, scored by when each was made to expire: what a data export lists. */
  private ownerKey(ownerId: string): string {
    return `${this.kind}s-of:${ownerId}`;
  }

  async create(tokenHash: string, session: SessionRecord): Promise<void> {
    // Redis forgets the session when its lifetime is over, so nothing needs sweeping.
    const ttlMs = Math.max(1, session.expiresAt - session.createdAt);
    const owner = this.ownerKey(session.userId);
    await this.redis
      .multi()
      .set(this.key(tokenHash), JSON.stringify(session), 'PX', ttlMs)
      .zadd(owner, session.expiresAt, tokenHash)
      .pexpire(owner, ttlMs)
      .exec();
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
    // XX: only an existing key, so a session deleted meanwhile is not brought back. Each renewal gives the full
    // lifetime, so the latest one also outlasts every other session of the owner's index.
    const ttlMs = Math.max(1, session.expiresAt - now);
    const owner = this.ownerKey(session.userId);
    await this.redis
      .multi()
      .set(this.key(tokenHash), JSON.stringify(session), 'PX', ttlMs, 'XX')
      .zadd(owner, 'XX', session.expiresAt, tokenHash)
      .pexpire(owner, ttlMs)
      .exec();
  }

  async delete(tokenHash: string): Promise<boolean> {
    return (await this.redis.del(this.key(tokenHash))) > 0;
  }

  async purgeExpired(): Promise<number> {
    // Keys carry a TTL of the session's remaining lifetime; Redis expires them itself.
    return 0;
  }

  async ofOwner(ownerId: string, now: number): Promise<SessionRecord[]> {
    const owner = this.ownerKey(ownerId);
    // Renewals move a session's expiry past its score, so only sessions gone from Redis are dropped from the index.
    const hashes = await this.redis.zrange(owner, 0, -1);
    if (hashes.length === 0) return [];
    const raws = await this.redis.mget(hashes.map((hash) => this.key(hash)));
    const gone = hashes.filter((_hash, i) => raws[i] === null);
    if (gone.length > 0) await this.redis.zrem(owner, ...gone);
    return raws
      .filter((raw): raw is string => raw !== null)
      .map((raw) => JSON.parse(raw) as SessionRecord)
      .filter((session) => session.expiresAt > now)
      .sort((a, b) => a.createdAt - b.createdAt);
  }
}
