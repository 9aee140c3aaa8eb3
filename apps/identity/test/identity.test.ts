/** The identity service over gRPC, as the gateway (or any other caller) sees it. */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { identity } from '@storefront/proto';
import { startIdentity, type IdentityHarness } from './support';
import { rejection, startForSuite } from '@storefront/testing';

const DAY = 24 * 3600 * 1000;
const PASSWORD = 'plum-tractor-42';

let emailCounter = 0;
function signUpRequest(overrides: Partial<identity.SignUpRequest> = {}): identity.SignUpRequest {
  emailCounter += 1;
  return {
    email: `customer${emailCounter}@example.test`,
    password: PASSWORD,
    firstName: 'Ada',
    lastName: 'Lovelace',
    clientAddress: '192.0.2.1',
    ...overrides,
  };
}

describe('identity service over gRPC', () => {
  let harness: IdentityHarness;
  startForSuite(
    () =>
      startIdentity({
        LOGIN_FAILURES_PER_ADDRESS_MAX: '6',
        SIGNUPS_PER_ADDRESS_MAX: '1000',
      }),
    (started) => (harness = started),
  );

  const caller = async (userId: string) => ({ customer: userId });

  describe('SignUp', () => {
    it('creates the account with a normalised email, trimmed names, a referral code and a session', async () => {
      const { profile, session } = await harness.client.signUp(
        signUpRequest({
          email: '  Grace.Hopper@Example.TEST ',
          firstName: ' Grace ',
          lastName: 'Hopper ',
          phone: '+44 20 7946 0000',
        }),
      );
      expect(profile).to.deep.include({
        email: 'grace.hopper@example.test',
        firstName: 'Grace',
        lastName: 'Hopper',
        phone: '+44 20 7946 0000',
        createdAt: new Date(harness.clock.ms).toISOString(),
      });
      expect(profile!.id).to.match(/^[0-9a-f-]{36}$/);
      expect(profile!.referralCode).to.match(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/);
      expect(profile!.referredBy).to.equal(undefined);
      expect(session!.token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(session!.maxAgeSeconds).to.equal(30 * 24 * 3600);
      const resolved = await harness.client.resolveSession({ sessionToken: session!.token });
      expect(resolved.profile).to.deep.equal(profile);
    });

    it('stores only the SHA-256 of the session token', async () => {
      const { session, profile } = await harness.client.signUp(signUpRequest());
      const token = session!.token;
      const hash = createHash('sha256').update(token).digest('hex');
      if (harness.stores.redisUrl) {
        const redis = new Redis(harness.stores.redisUrl);
        try {
          const stored = await redis.get(`${harness.stores.redisPrefix}session:${hash}`);
          expect(JSON.parse(stored!)).to.have.property('userId', profile!.id);
          expect(stored).to.not.include(token);
          const keys = await redis.keys(`${harness.stores.redisPrefix}*`);
          expect(keys.some((key) => key.includes(token))).to.equal(false);
        } finally {
          redis.disconnect();
        }
      } else {
        const rows = await harness.server.db('sessions').where({ user_id: profile!.id });
        expect(rows.map((row) => row.token_hash)).to.deep.equal([hash]);
      }
      const user = await harness.server.db('users').where({ id: profile!.id }).first();
      expect(user.password_hash).to.match(/^\$argon2id\$/);
      expect(JSON.stringify(user)).to.not.include(PASSWORD);
    });

    it('refuses an email that is already registered, in any case', async () => {
      const request = signUpRequest();
      await harness.client.signUp(request);
      const error = await rejection(harness.client.signUp({ ...request, email: request.email.toUpperCase() }));
      expect(error).to.include({ kind: 'conflict', code: 'email_taken' });
    });

    it('accepts passwords of 6 and of 128 characters and refuses 5 and 129', async () => {
      await harness.client.signUp(signUpRequest({ password: 'qz7!xk' }));
      await harness.client.signUp(signUpRequest({ password: 'k'.repeat(127) + '€' }));
      const short = await rejection(harness.client.signUp(signUpRequest({ password: 'qz7!x' })));
      expect(short).to.include({ kind: 'invalid_argument', detail: 'password must be at least 6 characters' });
      const long = await rejection(harness.client.signUp(signUpRequest({ password: 'k'.repeat(129) })));
      expect(long).to.include({ kind: 'invalid_argument', detail: 'password must be at most 128 characters' });
    });

    it('refuses the most common passwords, whatever their case, and says why', async () => {
      for (const password of ['password123', 'Sunshine', 'QWERTY123']) {
        const error = await rejection(harness.client.signUp(signUpRequest({ password })));
        expect(error.kind).to.equal('invalid_argument');
        expect(error.code).to.equal('password_too_common');
        expect(error.detail).to.match(/^password is one of the most commonly used passwords/);
      }
    });

    it('names the field of every other invalid value and writes nothing', async () => {
      const cases: Array<[Partial<identity.SignUpRequest>, string]> = [
        [{ email: 'not-an-email' }, 'email must be a valid email address'],
        [{ email: '' }, 'email must be a valid email address'],
        [{ firstName: '   ' }, 'firstName must not be empty'],
        [{ lastName: 'x'.repeat(101) }, 'lastName must be at most 100 characters'],
        [{ firstName: 'Ada\u0000' }, 'firstName must not contain control characters'],
        [{ phone: 'call me' }, 'phone must be a phone number: digits, spaces, + ( ) - . and at least 5 digits'],
      ];
      const before = await harness.server.db('users').count({ n: '*' }).first();
      for (const [overrides, detail] of cases) {
        const error = await rejection(harness.client.signUp(signUpRequest(overrides)));
        expect(error).to.include({ kind: 'invalid_argument', detail });
      }
      const after = await harness.server.db('users').count({ n: '*' }).first();
      expect(Number(after!.n)).to.equal(Number(before!.n));
    });

    it('keeps the referral code used, typed in any case, and refuses one that names nobody', async () => {
      const referrer = await harness.client.signUp(signUpRequest());
      const code = referrer.profile!.referralCode;
      const referred = await harness.client.signUp(signUpRequest({ referralCode: ` ${code.toLowerCase()} ` }));
      expect(referred.profile!.referredBy).to.equal(code);
      expect(referred.profile!.referralCode).to.not.equal(code);
      const error = await rejection(harness.client.signUp(signUpRequest({ referralCode: 'ZZZZZZZZ' })));
      expect(error).to.include({ kind: 'invalid_argument', detail: 'referralCode does not belong to any customer' });
    });

    it('treats an empty phone and an empty referral code as not given', async () => {
      const { profile } = await harness.client.signUp(signUpRequest({ phone: '', referralCode: '' }));
      expect(profile!.phone).to.equal(undefined);
      expect(profile!.referredBy).to.equal(undefined);
    });
  });

  describe('LogIn, sessions and LogOut', () => {
    it('issues a new session on every login, leaving the others valid', async () => {
      const request = signUpRequest();
      const signedUp = await harness.client.signUp(request);
      const first = await harness.client.logIn({
        email: ` ${request.email.toUpperCase()}`,
        password: PASSWORD,
        clientAddress: '192.0.2.9',
      });
      const second = await harness.client.logIn({
        email: request.email,
        password: PASSWORD,
        clientAddress: '192.0.2.9',
      });
      expect(first.profile).to.deep.equal(signedUp.profile);
      const tokens = new Set([signedUp.session!.token, first.session!.token, second.session!.token]);
      expect(tokens.size).to.equal(3);
      for (const token of tokens)
        expect((await harness.client.resolveSession({ sessionToken: token })).profile!.id).to.equal(
          signedUp.profile!.id,
        );
    });

    it('answers an unknown email and a wrong password alike', async () => {
      const request = signUpRequest();
      await harness.client.signUp(request);
      const wrong = await rejection(
        harness.client.logIn({ email: request.email, password: 'not-the-password', clientAddress: '192.0.2.10' }),
      );
      const unknown = await rejection(
        harness.client.logIn({ email: `nobody-${request.email}`, password: PASSWORD, clientAddress: '192.0.2.10' }),
      );
      expect(wrong).to.include({
        kind: 'unauthenticated',
        code: 'invalid_credentials',
        detail: 'Email or password is incorrect',
      });
      expect({ ...unknown }).to.deep.equal({ ...wrong });
    });

    it('refuses a login password over 128 characters as invalid, not as wrong', async () => {
      const error = await rejection(
        harness.client.logIn({ email: 'a@example.test', password: 'p'.repeat(129), clientAddress: '192.0.2.11' }),
      );
      expect(error).to.include({ kind: 'invalid_argument', detail: 'password must be at most 128 characters' });
    });

    it('keeps a session for 30 days, then answers 401 and purges it', async () => {
      const { session, profile } = await harness.client.signUp(signUpRequest());
      const token = session!.token;
      harness.clock.advance(30 * DAY - 1000);
      expect((await harness.client.resolveSession({ sessionToken: token })).profile!.id).to.equal(profile!.id);
      harness.clock.advance(1000);
      const error = await rejection(harness.client.resolveSession({ sessionToken: token }));
      expect(error).to.include({ kind: 'unauthenticated', code: 'unauthorized' });
      const hash = createHash('sha256').update(token).digest('hex');
      if (harness.stores.redisUrl) {
        const redis = new Redis(harness.stores.redisUrl);
        try {
          expect(await redis.exists(`${harness.stores.redisPrefix}session:${hash}`)).to.equal(0);
        } finally {
          redis.disconnect();
        }
      } else {
        expect(await harness.server.db('sessions').where({ token_hash: hash }).first()).to.equal(undefined);
      }
    });

    it('ends a session on logout; a second logout, an unknown or malformed token is 401', async () => {
      const { session } = await harness.client.signUp(signUpRequest());
      await harness.client.logOut({ sessionToken: session!.token });
      expect(await rejection(harness.client.resolveSession({ sessionToken: session!.token }))).to.include({
        kind: 'unauthenticated',
      });
      expect(await rejection(harness.client.logOut({ sessionToken: session!.token }))).to.include({
        kind: 'unauthenticated',
      });
      expect(await rejection(harness.client.logOut({ sessionToken: 'A'.repeat(43) }))).to.include({
        kind: 'unauthenticated',
      });
      expect(await rejection(harness.client.resolveSession({ sessionToken: "'; drop table sessions; --" }))).to.include(
        { kind: 'unauthenticated' },
      );
      expect(await rejection(harness.client.resolveSession({ sessionToken: '' }))).to.include({
        kind: 'unauthenticated',
      });
    });
  });

  // The per-account limit and the progressive delay per address: login-backoff.test.ts.
  describe('rate limits', () => {
    it('limits failed logins per client address across accounts, and only that address', async () => {
      const address = '203.0.113.200';
      for (let i = 0; i < 6; i += 1) {
        await rejection(
          harness.client.logIn({ email: `spray${i}@example.test`, password: 'wrong-password', clientAddress: address }),
        );
      }
      const request = signUpRequest();
      await harness.client.signUp(request);
      expect(
        await rejection(harness.client.logIn({ email: request.email, password: PASSWORD, clientAddress: address })),
      ).to.include({ kind: 'rate_limited' });
      expect(
        (await harness.client.logIn({ email: request.email, password: PASSWORD, clientAddress: '203.0.113.201' }))
          .profile,
      ).to.not.equal(undefined);
    });
  });

  it('refuses to start when Redis is configured but does not answer', async () => {
    const error = await startIdentity({ REDIS_URL: 'redis://127.0.0.1:9' }).then(
      (started) => started.stop().then(() => undefined),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(Error);
  });

  describe('GetProfile and UpdateProfile', () => {
    it('require the caller token and act for that caller only', async () => {
      const ada = await harness.client.signUp(signUpRequest());
      const bob = await harness.client.signUp(signUpRequest({ firstName: 'Bob' }));
      expect(await rejection(harness.client.getProfile({}))).to.include({ kind: 'unauthenticated' });
      expect(await rejection(harness.client.updateProfile({ firstName: 'Eve' }))).to.include({
        kind: 'unauthenticated',
      });
      expect((await harness.client.getProfile({}, await caller(ada.profile!.id))).profile).to.deep.equal(ada.profile);
      await harness.client.updateProfile({ firstName: 'Robert' }, await caller(bob.profile!.id));
      expect((await harness.client.getProfile({}, await caller(ada.profile!.id))).profile!.firstName).to.equal('Ada');
      expect((await harness.client.getProfile({}, await caller(bob.profile!.id))).profile!.firstName).to.equal(
        'Robert',
      );
    });

    it('changes only the fields given, trims them, and clears the phone with an empty string', async () => {
      const { profile } = await harness.client.signUp(signUpRequest({ phone: '07700 900123' }));
      const options = await caller(profile!.id);
      const renamed = await harness.client.updateProfile({ lastName: '  Byron ' }, options);
      expect(renamed.profile).to.deep.equal({ ...profile, lastName: 'Byron' });
      const cleared = await harness.client.updateProfile({ phone: '' }, options);
      expect(cleared.profile!.phone).to.equal(undefined);
      expect(cleared.profile).to.deep.include({
        email: profile!.email,
        referralCode: profile!.referralCode,
        id: profile!.id,
      });
    });

    it('refuses invalid edits naming the field, changing nothing', async () => {
      const { profile } = await harness.client.signUp(signUpRequest());
      const options = await caller(profile!.id);
      expect(await rejection(harness.client.updateProfile({ firstName: 'Ok', lastName: ' ' }, options))).to.include({
        kind: 'invalid_argument',
        detail: 'lastName must not be empty',
      });
      expect((await harness.client.getProfile({}, options)).profile).to.deep.equal(profile);
    });
  });
});
