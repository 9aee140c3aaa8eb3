/** Signup, login, me and logout through the gateway over real HTTP, with identity and loyalty behind it. */
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import {
  CLEARED_COOKIE,
  COOKIE_PATTERN,
  FAST_ARGON2,
  PASSWORD,
  newCustomer,
  sessionSet,
  signUp,
  type AuthSuccess,
  type ErrorBody,
} from './auth-fixtures';

describe('gateway: accounts and sessions', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2 });
  });
  after(async () => stack?.stop());

  const userCount = async () => Number((await stack.identity!.db('users').count({ n: '*' }).first())!.n);

  describe('POST /api/auth/signup', () => {
    it('answers AuthSuccess with the profile and the 100-point welcome bonus and sets the cookie exactly', async () => {
      const client = stack.client();
      const customer = newCustomer({ phone: '+44 7700 900123' });
      const res = await client.post<AuthSuccess>('/api/auth/signup', {
        ...customer,
        email: `  ${customer.email.toUpperCase()} `,
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const cookies = res.headers.getSetCookie();
      expect(cookies).to.have.length(1);
      expect(cookies[0]).to.match(COOKIE_PATTERN);
      const { success, user, loyalty } = res.body;
      expect(success).to.equal(true);
      expect(Object.keys(user.profile).sort()).to.deep.equal([
        'createdAt',
        'email',
        'firstName',
        'id',
        'lastName',
        'phone',
        'referralCode',
      ]);
      expect(user.profile).to.include({
        email: customer.email.toLowerCase(),
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '+44 7700 900123',
      });
      expect(user.profile.referralCode).to.match(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/);
      expect(Math.abs(Date.parse(user.profile.createdAt) - Date.now())).to.be.below(60_000);
      expect(loyalty).to.include({ points: 100, lifetimePoints: 100, tier: 'bronze' });
      expect(loyalty.pointsHistory).to.have.length(1);
      expect(loyalty.pointsHistory[0]).to.include({ type: 'welcome', points: 100 });
      expect(res.text).to.not.include(PASSWORD);
    });

    it('answers 409 for an email already registered, in any case, and sets no cookie', async () => {
      const { customer } = await signUp(stack.client());
      const res = await stack
        .client()
        .post<ErrorBody>('/api/auth/signup', { ...customer, email: customer.email.toUpperCase() });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({ success: false, error: 'email_taken', detail: res.body.detail });
      expect(res.body.detail).to.include('email');
      expect(res.headers.getSetCookie()).to.deep.equal([]);
    });

    it('keeps the referral code used and answers 400 for one that names nobody', async () => {
      const referrer = await signUp(stack.client());
      const { profile } = await signUp(stack.client(), { referralCode: referrer.profile.referralCode.toLowerCase() });
      expect(profile.referredBy).to.equal(referrer.profile.referralCode);
      const res = await stack.client().post<ErrorBody>('/api/auth/signup', newCustomer({ referralCode: 'ZZZZ2222' }));
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.include('referralCode');
    });

    it('answers 400 naming the field for every kind of bad input, writing nothing', async () => {
      const before = await userCount();
      const valid = newCustomer();
      const { email: _email, ...withoutEmail } = valid;
      const { password: _password, ...withoutPassword } = valid;
      const { firstName: _firstName, ...withoutFirstName } = valid;
      const { lastName: _lastName, ...withoutLastName } = valid;
      const cases: Array<[string, unknown, string | RegExp]> = [
        ['missing email', withoutEmail, 'email is required'],
        ['missing password', withoutPassword, 'password is required'],
        ['missing firstName', withoutFirstName, 'firstName is required'],
        ['missing lastName', withoutLastName, 'lastName is required'],
        ['email not a string', { ...valid, email: 42 }, /^email /],
        ['password not a string', { ...valid, password: true }, /^password /],
        ['firstName not a string', { ...valid, firstName: ['Ada'] }, /^firstName /],
        ['phone not a string', { ...valid, phone: 7700900123 }, /^phone /],
        ['email not an email', { ...valid, email: 'not-an-email' }, /^email /],
        ['huge email', { ...valid, email: `${'a'.repeat(20_000)}@example.test` }, /^email /],
        ['huge firstName', { ...valid, firstName: 'A'.repeat(20_000) }, /^firstName /],
        ['empty lastName', { ...valid, lastName: '' }, /^lastName /],
        ['blank firstName', { ...valid, firstName: '   ' }, 'firstName must not be empty'],
        [
          'firstName with a line break',
          { ...valid, firstName: 'Ada\r\nVisit https://evil.example' },
          'firstName must not contain control characters (line breaks, tabs and the like)',
        ],
        [
          'lastName with a C1 control',
          { ...valid, lastName: 'Love\u0085lace' },
          'lastName must not contain control characters (line breaks, tabs and the like)',
        ],
        ['phone with letters', { ...valid, phone: 'call me maybe' }, /^phone /],
        ['password of 5 characters', { ...valid, password: 'qz7!x' }, /^password .*6/],
        ['password of 129 characters', { ...valid, password: 'q'.repeat(129) }, /^password .*128/],
        [
          'common password',
          { ...valid, password: 'password123' },
          /^password is one of the most commonly used passwords/,
        ],
        ['unknown field', { ...valid, isAdmin: true }, 'isAdmin is not an allowed field'],
        ['array body', [valid], 'body must be a JSON object'],
        ['string body', 'hello', 'body must be a JSON object'],
        ['null body', null, 'body must be a JSON object'],
        ['no body', undefined, 'email is required'],
      ];
      for (const [label, body, detail] of cases) {
        const res = await stack.client().request<ErrorBody>('POST', '/api/auth/signup', {
          body: body === undefined ? undefined : JSON.stringify(body),
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
        });
        expect(res.status, label).to.equal(400);
        expect(res.body.success, label).to.equal(false);
        expect(res.body.error, label).to.be.a('string').and.not.empty;
        if (typeof detail === 'string') expect(res.body.detail, label).to.equal(detail);
        else expect(res.body.detail, label).to.match(detail);
        expect(res.headers.getSetCookie(), label).to.deep.equal([]);
      }
      expect(await userCount()).to.equal(before);
    });

    it('says why a common password is refused', async () => {
      const res = await stack.client().post<ErrorBody>('/api/auth/signup', newCustomer({ password: 'Sunshine1' }));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('password_too_common');
      expect(res.body.detail).to.include('commonly used');
    });
  });

  describe('POST /api/auth/login', () => {
    it('answers AuthSuccess with the same profile and loyalty, and a new session every time', async () => {
      const signedUp = await signUp(stack.client());
      const signupToken = sessionSet(signedUp.res);
      const client = stack.client();
      const first = await client.post<AuthSuccess>('/api/auth/login', {
        email: ` ${signedUp.customer.email.toUpperCase()} `,
        password: PASSWORD,
      });
      expect(first.status).to.equal(200);
      expect(first.headers.get('cache-control')).to.equal('no-store');
      expect(first.body.user.profile).to.deep.equal(signedUp.profile);
      expect(first.body.loyalty).to.include({ points: 100, tier: 'bronze' });
      const second = await client.post<AuthSuccess>('/api/auth/login', {
        email: signedUp.customer.email,
        password: PASSWORD,
      });
      const tokens = [signupToken, sessionSet(first), sessionSet(second)];
      for (const token of tokens) expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(new Set(tokens).size).to.equal(3);
      // Each login is its own session: all three stay valid until logged out.
      for (const token of tokens) {
        const device = stack.client();
        device.setCookie('svc_sess', token!);
        expect((await device.get('/api/auth/me')).status).to.equal(200);
      }
    });

    it('answers the same 401 for a wrong password and an unknown email, without a cookie', async () => {
      const { customer } = await signUp(stack.client());
      const wrong = await stack
        .client()
        .post<ErrorBody>('/api/auth/login', { email: customer.email, password: 'not-the-password' });
      const unknown = await stack
        .client()
        .post<ErrorBody>('/api/auth/login', { email: `nobody.${customer.email}`, password: PASSWORD });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.body).to.deep.equal({
        success: false,
        error: 'invalid_credentials',
        detail: 'Email or password is incorrect',
      });
      expect(unknown.text).to.equal(wrong.text);
      expect(wrong.headers.getSetCookie()).to.deep.equal([]);
      expect(unknown.headers.getSetCookie()).to.deep.equal([]);
    });

    it('answers 401 invalid_credentials naming the fault to a body that cannot be credentials; no cookie', async () => {
      const cases: Array<[unknown, string | RegExp]> = [
        [{ email: 'a@example.test' }, 'password is required'],
        [{ password: PASSWORD }, 'email is required'],
        [{ email: 'a@example.test', password: 123456 }, /^password /],
        [{ email: 'nope', password: PASSWORD }, /^email /],
        [{ email: 'a@example.test', password: 'p'.repeat(129) }, /^password .*128/],
        [{ email: 'a@example.test', password: PASSWORD, remember: true }, 'remember is not an allowed field'],
        [[], 'body must be a JSON object'],
      ];
      for (const [body, detail] of cases) {
        const res = await stack.client().post<ErrorBody>('/api/auth/login', body);
        expect(res.status, JSON.stringify(body)).to.equal(401);
        expect(res.body.error).to.equal('invalid_credentials');
        if (typeof detail === 'string') expect(res.body.detail).to.equal(detail);
        else expect(res.body.detail).to.match(detail);
        expect(res.headers.getSetCookie()).to.deep.equal([]);
      }
    });

    it('answers 401 invalid_credentials to a body that is not JSON, not application/json or too large', async () => {
      const { customer } = await signUp(stack.client());
      const credentials = JSON.stringify({ email: customer.email, password: PASSWORD });
      const cases: Array<[{ body: string; headers: Record<string, string> }, string]> = [
        [{ body: '{"email":', headers: { 'content-type': 'application/json' } }, 'Request body is not valid JSON'],
        [{ body: credentials, headers: { 'content-type': 'text/plain' } }, 'Request body must be application/json'],
        [
          {
            body: JSON.stringify({ email: customer.email, password: 'x'.repeat(200 * 1024) }),
            headers: { 'content-type': 'application/json' },
          },
          'Request body exceeds 102400 bytes',
        ],
      ];
      for (const [options, detail] of cases) {
        const res = await stack.client().request<ErrorBody>('POST', '/api/auth/login', options);
        expect(res.status, detail).to.equal(401);
        expect(res.body).to.deep.equal({ success: false, error: 'invalid_credentials', detail });
        expect(res.headers.getSetCookie()).to.deep.equal([]);
      }
    });
  });

  describe('GET /api/auth/me', () => {
    it('answers AuthSuccess for the session cookie', async () => {
      const client = stack.client();
      const { profile } = await signUp(client);
      const res = await client.get<AuthSuccess>('/api/auth/me');
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body.success).to.equal(true);
      expect(res.body.user.profile).to.deep.equal(profile);
      expect(res.body.loyalty).to.include({ points: 100, lifetimePoints: 100, tier: 'bronze' });
    });

    it('answers 401 without a cookie, and 401 clearing a cookie that names no session', async () => {
      const anonymous = await stack.client().get<ErrorBody>('/api/auth/me');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body).to.deep.include({ success: false, error: 'unauthorized' });
      expect(anonymous.headers.getSetCookie()).to.deep.equal([]);
      for (const value of ['A'.repeat(43), 'garbage', '']) {
        const client = stack.client();
        const res = await client.request<ErrorBody>('GET', '/api/auth/me', {
          headers: { cookie: `other=1; svc_sess=${value}` },
        });
        expect(res.status, value).to.equal(401);
        expect(res.body.error).to.equal('unauthorized');
        expect(res.headers.getSetCookie()).to.deep.equal([CLEARED_COOKIE]);
      }
    });

    it('answers 405 for other methods', async () => {
      const res = await stack.client().post<ErrorBody>('/api/auth/me', {});
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
    });
  });

  describe('POST /api/auth/logout', () => {
    it('ends the session server-side and clears the cookie', async () => {
      const client = stack.client();
      const { res: signedUp } = await signUp(client);
      const token = sessionSet(signedUp)!;
      const res = await client.post('/api/auth/logout');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true });
      expect(res.headers.getSetCookie()).to.deep.equal([CLEARED_COOKIE]);
      // Replaying the old cookie does not bring the session back.
      const replay = stack.client();
      replay.setCookie('svc_sess', token);
      expect((await replay.get('/api/auth/me')).status).to.equal(401);
      const again = await replay.post<ErrorBody>('/api/auth/logout');
      expect(again.status).to.equal(401);
      expect(again.body).to.deep.include({ success: false, error: 'unauthorized' });
    });

    it('ends only its own session', async () => {
      const laptop = stack.client();
      const { customer } = await signUp(laptop);
      const phone = stack.client();
      await phone.post('/api/auth/login', { email: customer.email, password: PASSWORD });
      await laptop.post('/api/auth/logout');
      expect((await phone.get('/api/auth/me')).status).to.equal(200);
    });

    it('answers 401 without a session', async () => {
      const res = await stack.client().post<ErrorBody>('/api/auth/logout');
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({ success: false, error: 'unauthorized' });
    });

    it('never reads a body: any body logs out with a session', async () => {
      for (const [name, options] of Object.entries(UNREADABLE_BODIES)) {
        const client = stack.client();
        await signUp(client);
        const res = await client.request<ErrorBody>('POST', '/api/auth/logout', options);
        expect(res.status, name).to.equal(200);
        expect(res.headers.getSetCookie(), name).to.deep.equal([CLEARED_COOKIE]);
      }
    });
  });

  describe('operations that need a session check it before reading the body', () => {
    for (const path of ['/api/auth/logout', '/api/state/sync']) {
      it(`POST ${path} answers 401 without a session whatever the body`, async () => {
        for (const [name, options] of Object.entries(UNREADABLE_BODIES)) {
          const res = await stack.client().request<ErrorBody>('POST', path, options);
          expect(res.status, name).to.equal(401);
          expect(res.body, name).to.deep.include({ success: false, error: 'unauthorized' });
        }
      });
    }
  });
});

/** Bodies no JSON operation reads: each has its own refusal (400, 415, 413) where a body is read. */
const UNREADABLE_BODIES: Record<string, { body: string; headers: Record<string, string> }> = {
  'malformed JSON': { body: '{"profile":', headers: { 'content-type': 'application/json' } },
  'text/plain': { body: 'hello', headers: { 'content-type': 'text/plain' } },
  '2 MB of JSON': {
    body: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }),
    headers: { 'content-type': 'application/json' },
  },
};
