/**
 * One suite for each store interface, run against every implementation the backend under test
 * offers: the SQL stores on SQLite or MySQL, and the Redis stores when Redis is configured.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { withBusyCores } from '@storefront/testing';
import { UserStore } from '../src/stores/users';
import { RedisSessionStore, SqlSessionStore, type SessionStore } from '../src/stores/sessions';
import {
  MemoryWindowCounters,
  RedisWindowCounters,
  SqlWindowCounters,
  windowCountersFor,
  type WindowCounters,
} from '@storefront/rate-limit';
import { dialectOf } from '@storefront/db';
import { hashSessionToken, newSessionToken } from '../src/domain/session-tokens';
import { openStores, type StoreHarness } from './support';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 24 * 3600 * 1000;

describe('identity stores', () => {
  let harness: StoreHarness;
  before(async () => {
    harness = await openStores();
  });
  after(async () => harness?.close());

  const sessionStores: Array<[string, () => SessionStore]> = [['SQL', () => new SqlSessionStore(harness.db)]];
  const counterStores: Array<[string, () => WindowCounters]> = [
    ['SQL', () => new SqlWindowCounters(harness.db)],
    ['Memory', () => new MemoryWindowCounters()],
  ];
  if (process.env.STOREFRONT_TEST_BACKEND === 'mysql') {
    sessionStores.push(['Redis', () => new RedisSessionStore(harness.redis!)]);
    counterStores.push(['Redis', () => new RedisWindowCounters(harness.redis!)]);
  }

  /** A user row, so the SQL store's foreign key holds; Redis does not care. */
  async function aUser(): Promise<string> {
    const id = randomUUID();
    await new UserStore(harness.db).insert({
      id,
      email: `${id}@example.test`,
      passwordHash: 'not-a-real-hash',
      firstName: 'Store',
      lastName: 'Test',
      referralCode: id.slice(0, 8).toUpperCase(),
      createdAt: T0,
    });
    return id;
  }

  for (const [name, makeStore] of sessionStores) {
    describe(`${name} session store`, () => {
      let store: SessionStore;
      before(() => {
        store = makeStore();
      });

      it('finds a session by the hash of its token until it expires', async () => {
        const userId = await aUser();
        const hash = hashSessionToken(newSessionToken());
        await store.create(hash, { userId, createdAt: T0, expiresAt: T0 + 30 * DAY });
        expect(await store.find(hash, T0 + 30 * DAY - 1)).to.deep.equal({
          userId,
          createdAt: T0,
          expiresAt: T0 + 30 * DAY,
        });
        expect(await store.find(hashSessionToken(newSessionToken()), T0)).to.equal(undefined);
      });

      it('treats an expired session as gone and deletes it when it meets it', async () => {
        const userId = await aUser();
        const hash = hashSessionToken(newSessionToken());
        await store.create(hash, { userId, createdAt: T0, expiresAt: T0 + DAY });
        expect(await store.find(hash, T0 + DAY)).to.equal(undefined);
        // Purged, not merely hidden: even an earlier clock no longer finds it.
        expect(await store.find(hash, T0)).to.equal(undefined);
      });

      it('deletes a session once and reports whether there was one', async () => {
        const userId = await aUser();
        const hash = hashSessionToken(newSessionToken());
        await store.create(hash, { userId, createdAt: T0, expiresAt: T0 + DAY });
        expect(await store.delete(hash)).to.equal(true);
        expect(await store.delete(hash)).to.equal(false);
        expect(await store.find(hash, T0)).to.equal(undefined);
      });

      it('keeps sessions of one user apart', async () => {
        const userId = await aUser();
        const [first, second] = [hashSessionToken(newSessionToken()), hashSessionToken(newSessionToken())];
        await store.create(first, { userId, createdAt: T0, expiresAt: T0 + DAY });
        await store.create(second, { userId, createdAt: T0, expiresAt: T0 + DAY });
        await store.delete(first);
        expect(await store.find(second, T0)).to.have.property('userId', userId);
      });
    });
  }

  for (const [name, makeCounters] of counterStores) {
    describe(`${name} attempt counters`, () => {
      let counters: WindowCounters;
      const WINDOW = 15 * 60 * 1000;
      before(() => {
        counters = makeCounters();
      });

      it('counts hits in a fixed window and starts again when it ends', async () => {
        const key = `k:${randomUUID()}`;
        expect(await counters.hit(key, WINDOW, T0)).to.deep.equal({ hits: 1, resetAt: T0 + WINDOW });
        expect(await counters.hit(key, WINDOW, T0 + 1000)).to.deep.equal({ hits: 2, resetAt: T0 + WINDOW });
        expect(await counters.hit(key, WINDOW, T0 + WINDOW - 1)).to.deep.equal({ hits: 3, resetAt: T0 + WINDOW });
        expect(await counters.hit(key, WINDOW, T0 + WINDOW)).to.deep.equal({ hits: 1, resetAt: T0 + 2 * WINDOW });
      });

      it('takes back a hit without going below zero, and clears', async () => {
        const key = `k:${randomUUID()}`;
        await counters.hit(key, WINDOW, T0);
        await counters.hit(key, WINDOW, T0);
        await counters.undo(key);
        expect((await counters.hit(key, WINDOW, T0)).hits).to.equal(2);
        await counters.undo(key);
        await counters.undo(key);
        await counters.undo(key);
        expect((await counters.hit(key, WINDOW, T0)).hits).to.equal(1);
        await counters.clear(key);
        expect((await counters.hit(key, WINDOW, T0)).hits).to.equal(1);
        await counters.undo(`k:${randomUUID()}`);
      });

      it('counts concurrent hits exactly once each', async () => {
        const key = `k:${randomUUID()}`;
        const results = await withBusyCores(() =>
          Promise.all(Array.from({ length: 25 }, () => counters.hit(key, WINDOW, T0))),
        );
        expect(results.map((r) => r.hits).sort((a, b) => a - b)).to.deep.equal(
          Array.from({ length: 25 }, (_, i) => i + 1),
        );
      });

      it('reads a running window without counting, and nothing once it has ended', async () => {
        const key = `k:${randomUUID()}`;
        expect(await counters.peek(key, T0)).to.equal(undefined);
        await counters.hit(key, WINDOW, T0);
        await counters.hit(key, WINDOW, T0);
        expect(await counters.peek(key, T0 + 1000)).to.deep.equal({ hits: 2, resetAt: T0 + WINDOW });
        expect((await counters.hit(key, WINDOW, T0 + 1000)).hits).to.equal(3);
        expect(await counters.peek(key, T0 + WINDOW)).to.equal(undefined);
      });

      it('keeps keys apart', async () => {
        const [a, b] = [`k:${randomUUID()}`, `k:${randomUUID()}`];
        await counters.hit(a, WINDOW, T0);
        await counters.hit(a, WINDOW, T0);
        expect((await counters.hit(b, WINDOW, T0)).hits).to.equal(1);
      });
    });
  }

  describe('SQL housekeeping', () => {
    it('purges expired sessions and ended counter windows, keeping live ones', async () => {
      const sessions = new SqlSessionStore(harness.db);
      const counters = new SqlWindowCounters(harness.db);
      const userId = await aUser();
      const [expired, live] = [hashSessionToken(newSessionToken()), hashSessionToken(newSessionToken())];
      await sessions.create(expired, { userId, createdAt: T0, expiresAt: T0 + DAY });
      await sessions.create(live, { userId, createdAt: T0, expiresAt: T0 + 3 * DAY });
      const [ended, running] = [`k:${randomUUID()}`, `k:${randomUUID()}`];
      await counters.hit(ended, DAY, T0);
      await counters.hit(running, 3 * DAY, T0);

      expect(await sessions.purgeExpired(T0 + 2 * DAY)).to.be.at.least(1);
      expect(await counters.purgeExpired(T0 + 2 * DAY)).to.be.at.least(1);
      const hashes = (await harness.db('sessions').where({ user_id: userId }).pluck('token_hash')) as string[];
      expect(hashes).to.deep.equal([live]);
      const keys = (await harness
        .db('rate_limit_counters')
        .whereIn('counter_key', [ended, running])
        .pluck('counter_key')) as string[];
      expect(keys).to.deep.equal([running]);
    });
  });

  describe('where counting happens', () => {
    it('is Redis when configured, else the SQL store on MySQL, else memory on embedded SQLite', () => {
      const expected = process.env.STOREFRONT_TEST_BACKEND === 'mysql' ? SqlWindowCounters : MemoryWindowCounters;
      expect(windowCountersFor(harness.db, dialectOf(harness.db), undefined)).to.be.instanceOf(expected);
      if (harness.redis)
        expect(windowCountersFor(harness.db, dialectOf(harness.db), harness.redis)).to.be.instanceOf(
          RedisWindowCounters,
        );
    });

    it('purges ended windows from memory, keeping running ones', async () => {
      const counters = new MemoryWindowCounters();
      await counters.hit('ended', DAY, T0);
      await counters.hit('running', 3 * DAY, T0);
      expect(await counters.purgeExpired(T0 + 2 * DAY)).to.equal(1);
      expect((await counters.hit('running', 3 * DAY, T0 + 2 * DAY)).hits).to.equal(2);
      expect((await counters.hit('ended', DAY, T0 + 2 * DAY)).hits).to.equal(1);
    });
  });

  if (process.env.STOREFRONT_TEST_BACKEND === 'mysql') {
    describe('Redis expiry', () => {
      it('gives a session key a TTL of its remaining lifetime', async () => {
        const hash = hashSessionToken(newSessionToken());
        await new RedisSessionStore(harness.redis!).create(hash, {
          userId: 'u',
          createdAt: T0,
          expiresAt: T0 + 30 * DAY,
        });
        const ttl = await harness.redis!.pttl(`session:${hash}`);
        expect(ttl).to.be.within(30 * DAY - 60_000, 30 * DAY);
      });

      it('gives a counter key a TTL of its window', async () => {
        const key = `k:${randomUUID()}`;
        await new RedisWindowCounters(harness.redis!).hit(key, 60_000, T0);
        expect(await harness.redis!.pttl(`attempts:${key}`)).to.be.within(50_000, 60_000);
      });

      it('keeps counting when Redis has forgotten its scripts (a restart or SCRIPT FLUSH)', async () => {
        const key = `k:${randomUUID()}`;
        const counters = new RedisWindowCounters(harness.redis!);
        expect((await counters.hit(key, 60_000, T0)).hits).to.equal(1);
        await harness.redis!.script('FLUSH');
        expect((await counters.hit(key, 60_000, T0)).hits).to.equal(2);
        await harness.redis!.script('FLUSH');
        await counters.undo(key);
        expect((await counters.hit(key, 60_000, T0)).hits).to.equal(2);
      });
    });
  }
});
