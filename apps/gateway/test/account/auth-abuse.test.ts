/** Abuse resistance through the gateway: rate limits, client addresses, CSRF and enumeration. */
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import { FAST_ARGON2, PASSWORD, newCustomer, signUp, type ErrorBody } from './auth-fixtures';

const FIFTEEN_MINUTES = 15 * 60 * 1000;

describe('gateway: login and signup rate limits', () => {
  let stack: Stack;
  let nowMs = Date.now();
  before(async () => {
    stack = await startStack({
      services: ['identity', 'loyalty'],
      now: () => nowMs,
      env: {
        ...FAST_ARGON2,
        // The test client is the proxy: it names each request's client in X-Forwarded-For.
        TRUSTED_PROXIES: '127.0.0.1',
        LOGIN_FAILURES_PER_ADDRESS_MAX: '5',
        LOGIN_BACKOFF_FREE_FAILURES: '2',
        LOGIN_BACKOFF_BASE_SECONDS: '60',
        SIGNUPS_PER_ADDRESS_MAX: '3',
      },
    });
  });
  after(async () => stack?.stop());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const logIn = (email: string, password: string, address: string) =>
    stack.client().post<ErrorBody>('/api/auth/login', { email, password }, from(address));

  it('makes an address that keeps failing wait, with 429, a growing Retry-After and the Error shape, while the owner logs in from another', async () => {
    const { customer } = await signUp(stack.client(), {});
    const attacker = '198.51.100.1';
    for (let i = 0; i < 2; i += 1)
      expect((await logIn(customer.email, 'wrong-password', attacker)).status).to.equal(401);
    const limited = await logIn(customer.email, PASSWORD, attacker);
    expect(limited.status).to.equal(429);
    expect(limited.body).to.deep.include({ success: false, error: 'too_many_attempts' });
    expect(limited.body.detail).to.be.a('string').and.not.empty;
    expect(limited.headers.get('retry-after')).to.equal('60');
    expect(limited.headers.getSetCookie()).to.deep.equal([]);

    // The owner, from an address that has not failed for the account, is not locked out.
    const owner = await logIn(customer.email, PASSWORD, '198.51.100.4');
    expect(owner.status).to.equal(200);
    expect(owner.headers.getSetCookie().some((cookie) => cookie.startsWith('svc_sess='))).to.equal(true);

    nowMs += 60 * 1000;
    expect((await logIn(customer.email, 'wrong-password', attacker)).status).to.equal(401);
    const longer = await logIn(customer.email, 'wrong-password', attacker);
    expect(longer.status).to.equal(429);
    expect(longer.headers.get('retry-after')).to.equal('120');
    nowMs += FIFTEEN_MINUTES;
  });

  it('limits failed logins per client address across accounts, leaving other addresses alone', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await logIn(`sprayed-${i}-${nowMs}@example.test`, 'wrong-password', '198.51.100.50')).status).to.equal(
        401,
      );
    }
    const { customer } = await signUp(stack.client());
    expect((await logIn(customer.email, PASSWORD, '198.51.100.50')).status).to.equal(429);
    expect((await logIn(customer.email, PASSWORD, '198.51.100.51')).status).to.equal(200);
    nowMs += FIFTEEN_MINUTES;
    expect((await logIn(customer.email, PASSWORD, '198.51.100.50')).status).to.equal(200);
  });

  it('counts an IPv6 /64 as one client, however its addresses are spelled, and IPv4-mapped as IPv4', async () => {
    const sameSlash64 = [
      '2001:DB8:1:2::1',
      '2001:db8:1:2::abcd',
      '2001:0db8:0001:0002:ffff::9',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2:0:0:0:5',
    ];
    for (const [i, address] of sameSlash64.entries()) {
      expect((await logIn(`walker-${i}-${nowMs}@example.test`, 'wrong-password', address)).status, address).to.equal(
        401,
      );
    }
    const { customer } = await signUp(stack.client());
    expect((await logIn(customer.email, PASSWORD, '2001:db8:1:2:aaaa:bbbb:cccc:dddd')).status).to.equal(429);
    expect((await logIn(customer.email, PASSWORD, '2001:db8:1:3::1')).status).to.equal(200);

    for (let i = 0; i < 5; i += 1) {
      const address = i % 2 === 0 ? '::ffff:198.51.100.70' : '198.51.100.70';
      expect((await logIn(`mapped-${i}-${nowMs}@example.test`, 'wrong-password', address)).status, address).to.equal(
        401,
      );
    }
    expect((await logIn(customer.email, PASSWORD, '::FFFF:c633:6446')).status).to.equal(429);
    nowMs += FIFTEEN_MINUTES;
  });

  it('limits sign-ups per client address', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await stack.client().post('/api/auth/signup', newCustomer(), from('198.51.100.60'))).status).to.equal(
        200,
      );
    }
    const limited = await stack.client().post<ErrorBody>('/api/auth/signup', newCustomer(), from('198.51.100.60'));
    expect(limited.status).to.equal(429);
    expect(limited.body.error).to.equal('too_many_attempts');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
    expect((await stack.client().post('/api/auth/signup', newCustomer(), from('198.51.100.61'))).status).to.equal(200);
  });
});

describe('gateway: X-Forwarded-For from an untrusted peer', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      services: ['identity', 'loyalty'],
      env: { ...FAST_ARGON2, LOGIN_FAILURES_PER_ADDRESS_MAX: '3' },
    });
  });
  after(async () => stack?.stop());

  it('is ignored, so a client cannot escape the address limit by inventing addresses', async () => {
    for (let i = 0; i < 3; i += 1) {
      const res = await stack
        .client()
        .post(
          '/api/auth/login',
          { email: `spoof-${i}@example.test`, password: 'wrong-password' },
          { 'x-forwarded-for': `203.0.113.${i}` },
        );
      expect(res.status).to.equal(401);
    }
    const res = await stack
      .client()
      .post(
        '/api/auth/login',
        { email: 'spoof-9@example.test', password: 'wrong-password' },
        { 'x-forwarded-for': '203.0.113.99' },
      );
    expect(res.status).to.equal(429);
  });
});

describe('gateway: cross-site requests carrying the session cookie', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      services: ['identity', 'loyalty'],
      env: { ...FAST_ARGON2, ALLOWED_ORIGINS: 'https://shop.example' },
    });
  });
  after(async () => stack?.stop());

  it('refuses state changes from a foreign Origin with 403, changing nothing', async () => {
    const client = stack.client();
    const { profile, customer } = await signUp(client);
    const foreign = { origin: 'https://evil.example' };
    const attempts = [
      client.post<ErrorBody>('/api/state/sync', { profile: { firstName: 'Hacked' } }, foreign),
      client.post<ErrorBody>('/api/auth/logout', undefined, foreign),
      client.post<ErrorBody>('/api/auth/login', { email: customer.email, password: PASSWORD }, foreign),
      client.post<ErrorBody>('/api/auth/signup', newCustomer(), foreign),
      client.post<ErrorBody>('/api/state/sync', {}, { origin: 'null' }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.include({ success: false, error: 'cross_site_request' });
      expect(res.headers.getSetCookie()).to.deep.equal([]);
    }
    const me = await client.get<{ user: { profile: unknown } }>('/api/auth/me', foreign);
    expect(me.status).to.equal(200);
    expect(me.body.user.profile).to.deep.equal(profile);
  });

  it('refuses Sec-Fetch-Site: cross-site when the browser sends no Origin', async () => {
    const client = stack.client();
    await signUp(client);
    const res = await client.post<ErrorBody>(
      '/api/state/sync',
      { profile: { firstName: 'Hacked' } },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(res.status).to.equal(403);
    expect(res.body.error).to.equal('cross_site_request');
  });

  it('serves this site, listed origins, same-origin fetches and clients that send neither header', async () => {
    const client = stack.client();
    await signUp(client);
    const allowed: Array<Record<string, string>> = [
      { origin: 'http://localhost:8080' },
      { origin: 'https://shop.example' },
      { 'sec-fetch-site': 'same-origin' },
      { origin: 'http://localhost:8080', 'sec-fetch-site': 'same-origin' },
      {},
    ];
    for (const headers of allowed) {
      const res = await client.post('/api/state/sync', { profile: { firstName: 'Fine' } }, headers);
      expect(res.status, JSON.stringify(headers)).to.equal(200);
    }
  });

  it('does not apply to requests without the cookie, which carry no credential', async () => {
    const res = await stack.client().post('/api/auth/signup', newCustomer(), { origin: 'https://evil.example' });
    expect(res.status).to.equal(200);
  });
});

describe('gateway: login does not reveal which emails have accounts', () => {
  let stack: Stack;
  before(async () => {
    // Production argon2 cost, so that skipping the hash for unknown emails would show; every
    // timed failure must be checked, so no login delay in the way.
    stack = await startStack({ services: ['identity', 'loyalty'], env: { LOGIN_BACKOFF_FREE_FAILURES: '100' } });
  });
  after(async () => stack?.stop());

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  it('takes about as long for an unknown email as for a wrong password', async () => {
    const { customer } = await signUp(stack.client());
    const timed = async (email: string) => {
      const started = performance.now();
      const res = await stack.client().post<ErrorBody>('/api/auth/login', { email, password: 'wrong-password' });
      expect(res.status).to.equal(401);
      return { ms: performance.now() - started, text: res.text };
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const a = await timed(customer.email);
      const b = await timed(`unknown-${i}-${customer.email}`);
      expect(b.text).to.equal(a.text);
      known.push(a.ms);
      unknown.push(b.ms);
    }
    const ratio = median(unknown) / median(known);
    expect(
      ratio,
      `median unknown ${median(unknown).toFixed(1)} ms vs known ${median(known).toFixed(1)} ms`,
    ).to.be.within(0.5, 2);
  });
});

describe('gateway: sign-ups and logins beyond the password-hashing queue', () => {
  let stack: Stack;
  before(async () => {
    // One hash at a time and nobody waiting, each hash long enough (about 0.2 s) to overlap the others.
    stack = await startStack({
      services: ['identity', 'loyalty'],
      env: {
        ARGON2_MEMORY_KIB: '65536',
        ARGON2_TIME_COST: '3',
        ARGON2_MAX_CONCURRENT: '1',
        PASSWORD_HASH_QUEUE_LIMIT: '0',
      },
    });
  });
  after(async () => stack?.stop());

  it('answers 503 with Retry-After and the Error shape, and creates no account for it', async () => {
    const customers = Array.from({ length: 4 }, () => newCustomer());
    const answers = await Promise.all(
      customers.map((customer) => stack.client().post<ErrorBody>('/api/auth/signup', customer)),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses).to.include(200).and.to.include(503);
    expect(
      statuses.every((status) => status === 200 || status === 503),
      String(statuses),
    ).to.equal(true);
    const refused = answers.filter((res) => res.status === 503);
    for (const res of refused) {
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(res.body).to.deep.include({ success: false, error: 'service_unavailable' });
      expect(res.body.detail).to.be.a('string').and.not.empty;
    }
    for (const [index, res] of answers.entries()) {
      const stored = await stack.identity!.db('users').where({ email: customers[index]!.email }).first();
      expect(Boolean(stored), customers[index]!.email).to.equal(res.status === 200);
    }
  });
});
