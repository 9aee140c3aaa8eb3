/** Session lifetime through the gateway: expiry on the identity clock, restarts, and loyalty outages at signup. */
import { expect } from 'chai';
import { provisionStores, startStack, type Stack, type TestStores } from '@storefront/testing';
import { CLEARED_COOKIE, FAST_ARGON2, PASSWORD, sessionSet, signUp, type AuthSuccess, type ErrorBody } from './auth-fixtures';

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
      const login = await second.client().post('/api/auth/login', { email: signedUp.customer.email, password: PASSWORD });
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

  it('still creates the account and session; the welcome bonus appears once loyalty is back, once', async () => {
    const withoutLoyalty = await startStack({ services: ['identity'], env: FAST_ARGON2, stores });
    let token: string;
    try {
      const client = withoutLoyalty.client();
      const res = await client.post<AuthSuccess>('/api/auth/signup', { email: `outage-${Date.now()}@example.test`, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' });
      expect(res.status).to.equal(200);
      token = sessionSet(res)!;
      expect(token).to.be.a('string');
      expect(res.body.loyalty).to.deep.equal({ points: 0, lifetimePoints: 0, tier: 'bronze', pointsHistory: [], availableRewards: [], redeemedRewards: [] });
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
        expect(me.body.loyalty).to.include({ points: 100, lifetimePoints: 100 });
        expect(me.body.loyalty.pointsHistory.filter((entry) => entry.type === 'welcome')).to.have.length(1);
      }
    } finally {
      await recovered.stop();
    }
  });
});
