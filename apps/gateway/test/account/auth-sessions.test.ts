/** Session lifetime through the gateway: expiry on the identity clock, restarts, and loyalty outages at signup. */
import { expect } from 'chai';
import { provisionStores, sessionCountOf, type TestStores } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import {
  CLEARED_COOKIE,
  FAST_ARGON2,
  PASSWORD,
  sessionSet,
  signUp,
  type AuthSuccess,
  type ErrorBody,
} from './auth-fixtures';

const DAY = 24 * 3600 * 1000;

describe('gateway: session expiry', () => {
  let stack: Stack;
  let nowMs = Date.now();
  before(async () => {
    stack = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2, now: () => nowMs });
  });
  after(async () => stack?.stop());

  it('keeps a session for 30 days, then answers 401 and clears the cookie', async () => {
    const client = stack.client();
    const { res } = await signUp(client);
    const token = sessionSet(res)!;
    nowMs += 30 * DAY - 1000;
    expect((await client.get('/api/auth/me')).status).to.equal(200);
    nowMs += 1000;
    const expired = await client.get<ErrorBody>('/api/auth/me');
    expect(expired.status).to.equal(401);
    expect(expired.body).to.deep.include({ success: false, error: 'unauthorized' });
    expect(expired.headers.getSetCookie()).to.deep.equal([CLEARED_COOKIE]);
    // Gone for good: neither the cookie nor a logout with it works any more.
    const replay = stack.client();
    replay.setCookie('svc_sess', token);
    expect((await replay.post('/api/state/sync', {})).status).to.equal(401);
    expect((await replay.post('/api/auth/logout')).status).to.equal(401);
  });

  it('starts a fresh 30 days at every login', async () => {
    const { customer } = await signUp(stack.client());
    nowMs += 20 * DAY;
    const client = stack.client();
    expect((await client.post('/api/auth/login', { email: customer.email, password: PASSWORD })).status).to.equal(200);
    nowMs += 20 * DAY;
    expect((await client.get('/api/auth/me')).status).to.equal(200);
  });
});

describe('gateway: accounts and sessions survive a restart', () => {
  let stores: TestStores;
  before(async () => {
    stores = await provisionStores();
  });
  after(async () => stores?.cleanup());

  it('serves the same account and session from the same stores after the services restart', async () => {
    const first = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2, stores });
    let token: string;
    let signedUp: Awaited<ReturnType<typeof signUp>>;
    try {
      signedUp = await signUp(first.client());
      token = sessionSet(signedUp.res)!;
    } finally {
      await first.stop();
    }
    const second = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2, stores });
    try {
      const client = second.client();
      client.setCookie('svc_sess', token);
      const me = await client.get<AuthSuccess>('/api/auth/me');
      expect(me.status).to.equal(200);
      expect(me.body.user.profile).to.deep.equal(signedUp.profile);
      expect(me.body.loyalty).to.include({ points: 100, lifetimePoints: 100 });
      const login = await second
        .client()
        .post('/api/auth/login', { email: signedUp.customer.email, password: PASSWORD });
      expect(login.status).to.equal(200);
    } finally {
      await second.stop();
    }
  });
});

describe('gateway: signup while loyalty is down', () => {
  let stores: TestStores;
  before(async () => {
    stores = await provisionStores();
  });
  after(async () => stores?.cleanup());

  it('still makes the account and session, owing the welcome bonus the ledger grants once it is back', async () => {
    const withoutLoyalty = await startStack({ services: ['identity'], env: FAST_ARGON2, stores });
    let token: string;
    let owed: AuthSuccess['loyalty'];
    try {
      const client = withoutLoyalty.client();
      const res = await client.post<AuthSuccess>('/api/auth/signup', {
        email: `outage-${Date.now()}@example.test`,
        password: PASSWORD,
        firstName: 'Ada',
        lastName: 'Lovelace',
      });
      expect(res.status).to.equal(200);
      token = sessionSet(res)!;
      expect(token).to.be.a('string');
      owed = res.body.loyalty;
      expect(owed).to.deep.include({
        points: 100,
        lifetimePoints: 100,
        tier: 'bronze',
        availableRewards: [],
        redeemedRewards: [],
      });
      expect(owed.pointsHistory).to.have.length(1);
      expect(owed.pointsHistory[0]).to.include({
        type: 'welcome',
        points: 100,
        createdAt: res.body.user.profile.createdAt,
      });
      const me = await client.get<ErrorBody>('/api/auth/me');
      expect(me.status).to.equal(503);
      expect(me.body.success).to.equal(false);
    } finally {
      await withoutLoyalty.stop();
    }
    const recovered = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2, stores });
    try {
      const client = recovered.client();
      client.setCookie('svc_sess', token);
      for (let i = 0; i < 2; i += 1) {
        const me = await client.get<AuthSuccess>('/api/auth/me');
        expect(me.status).to.equal(200);
        // What signup showed as owed is what the ledger granted.
        expect(me.body.loyalty).to.include({
          points: owed.points,
          lifetimePoints: owed.lifetimePoints,
          tier: owed.tier,
        });
        const welcome = me.body.loyalty.pointsHistory.filter((entry) => entry.type === 'welcome');
        expect(welcome).to.have.length(1);
        expect(welcome[0]).to.include({
          points: owed.pointsHistory[0]!.points,
          description: owed.pointsHistory[0]!.description,
        });
      }
    } finally {
      await recovered.stop();
    }
  });
});

describe('gateway: login while loyalty is down', () => {
  let stores: TestStores;
  before(async () => {
    stores = await provisionStores();
  });
  after(async () => stores?.cleanup());

  it('answers 503 without a cookie and leaves no session behind, however often it is retried', async () => {
    const full = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2, stores });
    let signedUp: Awaited<ReturnType<typeof signUp>>;
    try {
      signedUp = await signUp(full.client());
    } finally {
      await full.stop();
    }
    const withoutLoyalty = await startStack({ services: ['identity'], env: FAST_ARGON2, stores });
    try {
      const logIn = () =>
        withoutLoyalty
          .client()
          .post<ErrorBody>('/api/auth/login', { email: signedUp.customer.email, password: PASSWORD });
      // One retry after another, then several at once.
      const answers = [await logIn(), await logIn(), ...(await Promise.all([logIn(), logIn(), logIn()]))];
      for (const res of answers) {
        expect(res.status).to.equal(503);
        expect(res.body.success).to.equal(false);
        expect(res.headers.getSetCookie()).to.deep.equal([]);
      }
      // Only the session signup started remains.
      expect(await sessionCountOf(stores, withoutLoyalty.identity!.db, signedUp.profile.id)).to.equal(1);
    } finally {
      await withoutLoyalty.stop();
    }
  });
});
