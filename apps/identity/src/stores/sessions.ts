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
  /** Whether a session was deleted. */
  delete(tokenHash: string): Promise<boolean>;
  /** Deletes every expired session; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

export class SqlSessionStore implements SessionStore {
  /** Every uncached session resolution: prepared below knex. */
  private readonly byTokenHash: PreparedRead<[tokenHash: string]>;

  constructor(private readonly db: Knex) {
    this.byTokenHash = preparedRead(db, (tokenHash: string) => db('sessions').where({ token_hash: tokenHash }).select('user_id', 'created_at', 'expires_at'));
  }

  async create(tokenHash: string, session: SessionRecord): Promise<void> {
    await this.db('sessions').insert({
      token_hash: tokenHash,
      user_id: session.userId,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    });
  }

  async find(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const [row] = await this.byTokenHash(tokenHash);
    if (!row) return undefined;
    const session = { userId: row.user_id as string, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) };
    if (session.expiresAt > now) return session;
    await this.delete(tokenHash);
    return undefined;
  }

  async delete(tokenHash: string): Promise<boolean> {
    return (await this.db('sessions').where({ token_hash: tokenHash }).del()) > 0;
  }

  async purgeExpired(now: number): Promise<number> {
    return this.db('sessions').where('expires_at', '<=', now).del();
  }
}

export class RedisSessionStore implements SessionStore {
  /** `redis` carries the deployment's key prefix (ioredis `keyPrefix`). */
  constructor(private readonly redis: Redis) {}

  private key(tokenHash: string): string {
    return `session:${tokenHash}`;
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

  async delete(tokenHash: string): Promise<boolean> {
    return (await this.redis.del(this.key(tokenHash))) > 0;
  }

  async purgeExpired(): Promise<number> {
    // Keys carry a TTL of the session's remaining lifetime; Redis expires them itself.
    return 0;
  }
}
