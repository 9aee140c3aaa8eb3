/**
 * The gateway's session cache: what it keeps, for how long, and how a logout on one replica
 * reaches every other (Redis pub/sub on the MySQL + Redis backend, in-process on SQLite).
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import { SessionCache, sessionKey, type ResolvedSession } from '../../src/kit/session-cache';
import { FAST_ARGON2, PASSWORD, meStatusWithin, sessionSet, signUp } from '../account/auth-fixtures';

const LONG_TRUST = { ...FAST_ARGON2, SESSION_CACHE_TTL_MS: '60000' };
const newToken = () => randomBytes(32).toString('base64url');

describe('gateway: session cache', () => {
  describe('the cache itself', () => {
    let nowMs = 1_000_000;
    const cache = (maxEntries = 100, ttlMs = 1000) => new SessionCache({ ttlMs, maxEntries, now: () => nowMs });
    /** A lookup that counts its calls and answers what it is told to. */
    function lookup(answer: ResolvedSession | undefined) {
      const calls: string[] = [];
      const fn = async (token: string) => {
        calls.push(token);
        return answer;
      };
      return { calls, fn };
    }

    it('keys entries by the SHA-256 of the token, never the token itself', () => {
      const token = newToken();
      expect(sessionKey(token)).to.equal(createHash('sha256').update(token).digest('base64url'));
      expect(sessionKey(token)).to.not.contain(token);
    });

    it('asks once per TTL, and never trusts a session past its own expiry', async () => {
      const sessions = cache(100, 1000);
      const long = lookup({ userId: 'u1', expiresInMs: 3_600_000 });
      const token = newToken();
      expect(await sessions.userIdOf(token, long.fn)).to.equal('u1');
      nowMs += 999;
      expect(await sessions.userIdOf(token, long.fn)).to.equal('u1');
      expect(long.calls).to.have.length(1);
      nowMs += 1;
      await sessions.userIdOf(token, long.fn);
      expect(long.calls).to.have.length(2);

      const expiring = lookup({ userId: 'u2', expiresInMs: 200 });
      const other = newToken();
      await sessions.userIdOf(other, expiring.fn);
      nowMs += 200;
      await sessions.userIdOf(other, expiring.fn);
      expect(expiring.calls).to.have.length(2);
    });

    it('never keeps a refusal', async () => {
      const sessions = cache();
      const refused = lookup(undefined);
      const token = newToken();
      expect(await sessions.userIdOf(token, refused.fn)).to.equal(undefined);
      expect(await sessions.userIdOf(token, refused.fn)).to.equal(undefined);
      expect(refused.calls).to.have.length(2);
      expect(sessions.size).to.equal(0);
    });

    it('shares one lookup among callers arriving together', async () => {
      const sessions = cache();
      const found = lookup({ userId: 'u3', expiresInMs: 60_000 });
      const token = newToken();
      expect(await Promise.all([1, 2, 3].map(() => sessions.userIdOf(token, found.fn)))).to.deep.equal([
        'u3',
        'u3',
        'u3',
      ]);
      expect(found.calls).to.have.length(1);
    });

    it('holds at most maxEntries, forgetting the oldest first', async () => {
      const sessions = cache(2);
      const found = lookup({ userId: 'u4', expiresInMs: 60_000 });
      const [a, b, c] = [newToken(), newToken(), newToken()];
      for (const token of [a, b, c]) await sessions.userIdOf(token, found.fn);
      expect(sessions.size).to.equal(2);
      await sessions.userIdOf(c, found.fn);
      await sessions.userIdOf(b, found.fn);
      expect(found.calls).to.deep.equal([a, b, c]);
      await sessions.userIdOf(a, found.fn);
      expect(found.calls).to.deep.equal([a, b, c, a]);
    });

    it('does not let a lookup that started before a revocation fill the cache', async () => {
      const sessions = cache();
      const token = newToken();
      let answer!: (found: ResolvedSession) => void;
      const slow = sessions.userIdOf(token, () => new Promise((resolve) => (answer = resolve)));
      sessions.revoke(sessionKey(token));
      answer({ userId: 'u5', expiresInMs: 60_000 });
      await slow;
      expect(sessions.size).to.equal(0);
      const after = lookup(undefined);
      expect(await sessions.userIdOf(token, after.fn)).to.equal(undefined);
      expect(after.calls).to.have.length(1);
    });
  });

  describe('two gateways on the same stores', () => {
    let nowMs = Date.now();
    let first: Stack;
    let second: Stack;
    before(async () => {
      // Caches that would trust a session for a minute: only a revocation can end it sooner.
      first = await startStack({ services: ['identity', 'loyalty'], env: LONG_TRUST, now: () => nowMs });
      second = await startStack({ replicaOf: first, env: LONG_TRUST, now: () => nowMs });
    });
    after(async () => {
      await second?.stop();
      await first?.stop();
    });

    /** A client of `stack` presenting `token` as its cookie. */
    function presenting(stack: Stack, token: string) {
      const client = stack.client();
      client.setCookie('svc_sess', token);
      return client;
    }

    it('refuses a cookie on every gateway within 1 s of its logout on one of them', async () => {
      const { res } = await signUp(first.client());
      const token = sessionSet(res)!;
      const [onFirst, onSecond] = [presenting(first, token), presenting(second, token)];
      expect((await onFirst.get('/api/auth/me')).status).to.equal(200);
      expect((await onSecond.get('/api/auth/me')).status).to.equal(200);

      expect((await onSecond.post('/api/auth/logout')).status).to.equal(200);
      expect(await meStatusWithin(onFirst, 1000)).to.equal(401);
      expect((await presenting(second, token).get('/api/auth/me')).status).to.equal(401);
    });

    it('serves a session identity deleted behind its back only until the cache stops trusting it', async () => {
      const { res } = await signUp(first.client());
      const token = sessionSet(res)!;
      const client = presenting(first, token);
      expect((await client.get('/api/auth/me')).status).to.equal(200);
      // Deleted in identity without going through a gateway: nothing is broadcast.
      await first.identity!.accounts.logOut(token);
      expect((await client.get('/api/auth/me')).status).to.equal(200);
      nowMs += 60_000;
      expect((await client.get('/api/auth/me')).status).to.equal(401);
    });

    it('lets a new session in at once on every gateway after refusals of the same browser', async () => {
      const { customer } = await signUp(first.client());
      const browser = second.client();
      browser.setCookie('svc_sess', newToken());
      expect((await browser.get('/api/auth/me')).status).to.equal(401);
      const login = await browser.post('/api/auth/login', { email: customer.email, password: PASSWORD });
      expect(login.status).to.equal(200);
      const token = sessionSet(login)!;
      expect((await browser.get('/api/auth/me')).status).to.equal(200);
      expect((await presenting(first, token).get('/api/auth/me')).status).to.equal(200);
    });
  });
});
