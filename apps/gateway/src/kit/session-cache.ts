/**
 * Resolved sessions kept briefly in the gateway, so a burst of requests on one cookie asks
 * identity once. Keyed by the SHA-256 of the cookie (the credential itself is never held as a
 * key nor sent anywhere), bounded in size, each entry trusted for a short TTL and never past the
 * session's own expiry. Only answers naming a customer are kept: a refused cookie is asked about
 * again, so no cached refusal can outlive a change. A revocation forgets the entry and any
 * lookup of it still in flight (docs/decisions/0801).
 */
import { createHash } from 'node:crypto';

export interface ResolvedSession {
  userId: string;
  /** Milliseconds the session has left, as identity sees it. */
  expiresInMs: number;
}

export interface SessionCacheOptions {
  /** How long a resolution is trusted; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

interface Entry {
  userId: string;
  trustedUntil: number;
}

const ACCOUNT_REVOCATION = 'account:';

/**
 * The revocation message that ends every cached session of an account (a password reset); a session key never contains
 * ':'.
 */
export function accountRevocation(userId: string): string {
  return `${ACCOUNT_REVOCATION}${userId}`;
}

/** The cache key and revocation message for a session token. */
export function sessionKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly lookups = new Map<string, Promise<string | undefined>>();
  // Bumped by every revocation: a lookup that started before one may not fill the cache.
  private revocations = 0;
  private readonly now: () => number;

  constructor(private readonly options: SessionCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The user id a token names: from the cache while trusted, else from `lookup`, which callers
   * arriving together share. Undefined when `lookup` finds no session; its errors propagate.
   */
  async userIdOf(
    token: string,
    lookup: (token: string) => Promise<ResolvedSession | undefined>,
  ): Promise<string | undefined> {
    if (this.options.ttlMs === 0) return (await lookup(token))?.userId;
    const key = sessionKey(token);
    const entry = this.entries.get(key);
    if (entry && entry.trustedUntil > this.now()) return entry.userId;
    if (entry) this.entries.delete(key);
    const pending = this.lookups.get(key);
    if (pending) return pending;
    const revocationsBefore = this.revocations;
    const started = this.now();
    const lookingUp = lookup(token).then(
      (found) => {
        if (this.lookups.get(key) === lookingUp) this.lookups.delete(key);
        if (found && this.revocations === revocationsBefore) {
          this.remember(key, {
            userId: found.userId,
            trustedUntil: started + Math.min(this.options.ttlMs, found.expiresInMs),
          });
        }
        return found?.userId;
      },
      (error: unknown) => {
        if (this.lookups.get(key) === lookingUp) this.lookups.delete(key);
        throw error;
      },
    );
    this.lookups.set(key, lookingUp);
    return lookingUp;
  }

  /**
   * Forgets the session with this key, or every session of the account an accountRevocation names, and any lookup of it
   * in flight.
   */
  revoke(key: string): void {
    this.revocations += 1;
    if (key.startsWith(ACCOUNT_REVOCATION)) {
      const userId = key.slice(ACCOUNT_REVOCATION.length);
      for (const [sessionKey, entry] of this.entries) if (entry.userId === userId) this.entries.delete(sessionKey);
      return;
    }
    this.entries.delete(key);
    this.lookups.delete(key);
  }

  /** Forgets everything, e.g. when revocations may have been missed. */
  clear(): void {
    this.revocations += 1;
    this.entries.clear();
    this.lookups.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(key: string, entry: Entry): void {
    this.entries.delete(key);
    // A Map iterates in insertion order: the first key is the oldest entry.
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
  }
}
