/**
 * Account mails and password reset through the gateway, with a real SMTP server receiving every
 * mail: the welcome mail, a reset link that sets a new password once and ends every session on
 * every replica, refused when used again or after an hour, the same answer for an unknown
 * email, the limits, and the pages ("Forgot password" on the log-in page).
 */
import { expect } from 'chai';
import type { ParsedMail } from 'mailparser';
import { startTestSmtpServer, type HttpClient, type TestResponse, type TestSmtpServer } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { FAST_ARGON2, PASSWORD, meStatusWithin, signUp, type ErrorBody } from './auth-fixtures';

const SITE = 'http://127.0.0.1:9';
const HOUR = 3600_000;
const NEW_PASSWORD = 'quiet-lantern-58';

describe('gateway: account mails and password reset', () => {
  let smtp: TestSmtpServer;
  let stack: Stack;
  let nowMs = Date.now();
  let addresses = 0;
  const from = () => ({ 'x-forwarded-for': `198.51.100.${(addresses += 1) % 250}` });

  before(async () => {
    smtp = await startTestSmtpServer();
    stack = await startStack({
      services: ['identity', 'loyalty'],
      now: () => nowMs,
      env: {
        ...FAST_ARGON2,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Shop <accounts@shop.test>',
        MAIL_POLL_INTERVAL_MS: '50',
        PUBLIC_BASE_URL: SITE,
        TRUSTED_PROXIES: '127.0.0.1',
        PASSWORD_RESETS_PER_ACCOUNT_MAX: '3',
        PASSWORD_RESETS_PER_ADDRESS_MAX: '6',
      },
    });
  });
  after(async () => {
    await stack?.stop();
    await smtp?.stop();
  });

  /** Every queued mail is out: requests recorded, then the outbox sent. */
  async function mailSettled(): Promise<void> {
    await stack.identity!.passwordResets.settled();
    await stack.identity!.sendMailNow();
  }

  const mailsTo = (email: string) => smtp.received.filter((mail) => (mail.to as { text: string }).text === email);

  async function requestReset(email: string, headers = from()): Promise<TestResponse<unknown>> {
    return stack.client().post('/api/auth/password-reset', { email }, headers);
  }

  /** Asks for a reset and answers the token of the link that arrives. */
  async function resetToken(email: string): Promise<string> {
    const before = (await mailsWith(email, 'Reset your password', 0)).length;
    expect((await requestReset(email)).status).to.equal(202);
    const mails = await mailsWith(email, 'Reset your password', before + 1);
    expect(mails).to.have.length(before + 1);
    return tokenOf(mails.at(-1)!);
  }

  /**
   * The mails to `email` with `subject` once there are `count` (another replica's sender may be the one sending them).
   */
  async function mailsWith(email: string, subject: string, count: number): Promise<ParsedMail[]> {
    const matching = () => mailsTo(email).filter((mail) => mail.subject === subject);
    for (let waited = 0; matching().length < count && waited < 5_000; waited += 50) {
      await mailSettled();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return matching();
  }

  function tokenOf(mail: ParsedMail): string {
    expect(mail.subject).to.equal('Reset your password');
    const link = new RegExp(`${SITE}/account/reset-password\\?token=([A-Za-z0-9_-]{43})`).exec(mail.text ?? '');
    expect(link, mail.text).to.not.equal(null);
    expect(mail.html).to.contain(`href="${SITE}/account/reset-password?token=${link![1]}"`);
    return link![1]!;
  }

  const confirm = (token: string, password = NEW_PASSWORD) =>
    stack.client().post<ErrorBody>('/api/auth/password-reset/confirm', { token, password }, from());
  const logIn = (client: HttpClient, email: string, password: string) =>
    client.post('/api/auth/login', { email, password }, from());

  it('mails the link to verify the address at sign-up, once, and nothing else (the welcome follows it)', async () => {
    const { customer } = await signUp(stack.client());
    await mailSettled();
    const [link, ...more] = mailsTo(customer.email);
    expect(more).to.have.length(0);
    expect(link!.subject).to.equal('Confirm your email address');
    expect(link!.text).to.contain(`${SITE}/account/verify-email?token=`).and.contain('research use only');
  });

  it('a reset link sets the new password once, ends every session of the account, sends a notice, and is refused the second time', async () => {
    const first = stack.client();
    const { customer } = await signUp(first);
    const second = stack.client();
    expect((await logIn(second, customer.email, PASSWORD)).status).to.equal(200);
    expect((await second.get('/api/auth/me')).status).to.equal(200);
    const used = await resetToken(customer.email);

    const done = await confirm(used);
    expect(done.status, done.text).to.equal(200);
    expect(done.body).to.deep.equal({ success: true });
    for (const client of [first, second]) expect((await client.get('/api/auth/me')).status).to.equal(401);
    expect((await logIn(stack.client(), customer.email, PASSWORD)).status).to.equal(401);
    expect((await logIn(stack.client(), customer.email, NEW_PASSWORD)).status).to.equal(200);

    const again = await confirm(used, 'another-fresh-password-9');
    expect(again.status).to.equal(400);
    expect(again.body).to.deep.include({ success: false, error: 'invalid_reset_token' });
    expect((await logIn(stack.client(), customer.email, NEW_PASSWORD)).status).to.equal(200);

    await mailSettled();
    const notices = mailsTo(customer.email).filter((mail) => mail.subject === 'Your password was changed');
    expect(notices).to.have.length(1);
    expect(notices[0]!.text).to.contain('every session was logged out');
  });

  it('refuses a link an hour old, and takes one just short of it', async () => {
    const { customer } = await signUp(stack.client());
    const expired = await resetToken(customer.email);
    nowMs += HOUR;
    expect((await confirm(expired)).body).to.deep.include({ error: 'invalid_reset_token' });
    const fresh = await resetToken(customer.email);
    nowMs += HOUR - 1000;
    expect((await confirm(fresh)).status).to.equal(200);
  });

  it('keeps the token when the new password breaks the sign-up rules', async () => {
    const { customer } = await signUp(stack.client());
    const token = await resetToken(customer.email);
    const short = await confirm(token, 'short');
    expect(short.status).to.equal(400);
    expect(short.body.detail).to.match(/^password /);
    const common = await confirm(token, 'password123');
    expect(common.body).to.deep.include({ error: 'password_too_common' });
    expect((await confirm(token)).status).to.equal(200);
  });

  it('answers an unknown email exactly as a known one, and mails nobody', async () => {
    const { customer } = await signUp(stack.client());
    await mailSettled();
    const mailsBefore = smtp.received.length;
    const known = await requestReset(customer.email);
    const unknown = await requestReset(`nobody-${Date.now()}@example.test`);
    const shape = (res: TestResponse<unknown>) => ({
      status: res.status,
      body: res.text,
      headers: [...res.headers.entries()].filter(([name]) => !['date', 'x-request-id', 'traceparent'].includes(name)),
    });
    expect(shape(unknown)).to.deep.equal(shape(known));
    expect(await mailsWith(customer.email, 'Reset your password', 1)).to.have.length(1);
    expect(smtp.received.length - mailsBefore).to.equal(1);
  });

  it('limits requests per email, known or not, and per client address', async () => {
    const { customer } = await signUp(stack.client());
    for (const email of [customer.email, `ghost-${Date.now()}@example.test`]) {
      for (let i = 0; i < 3; i += 1) expect((await requestReset(email)).status).to.equal(202);
      const limited = await requestReset(email);
      expect(limited.status).to.equal(429);
      expect(limited.body).to.deep.include({ success: false, error: 'too_many_attempts' });
    }
    const address = { 'x-forwarded-for': '203.0.113.77' };
    for (let i = 0; i < 6; i += 1)
      expect((await requestReset(`many-${i}-${Date.now()}@example.test`, address)).status).to.equal(202);
    expect((await requestReset(`many-last-${Date.now()}@example.test`, address)).status).to.equal(429);
  });

  it('refuses a malformed email or token with a clear 400', async () => {
    const badEmail = await stack
      .client()
      .post<ErrorBody>('/api/auth/password-reset', { email: 'not-an-email' }, from());
    expect(badEmail.status).to.equal(400);
    expect(badEmail.body).to.include({ success: false });
    const badToken = await confirm('short-token');
    expect(badToken.status).to.equal(400);
    expect(badToken.body.detail).to.match(/^token /);
  });

  it("a reset ends the account's sessions cached by another gateway replica within 1 s", async () => {
    const replica = await startStack({
      replicaOf: stack,
      now: () => nowMs,
      env: {
        ...FAST_ARGON2,
        SMTP_URL: smtp.url,
        MAIL_POLL_INTERVAL_MS: '50',
        PUBLIC_BASE_URL: SITE,
        TRUSTED_PROXIES: '127.0.0.1',
      },
    });
    try {
      const { customer, res } = await signUp(stack.client());
      const onReplica = new (stack.client().constructor as new (url: string) => HttpClient)(replica.gateway.url);
      const cookie = /svc_sess=([^;]+)/.exec(res.headers.getSetCookie().join(';'))![1]!;
      onReplica.setCookie('svc_sess', cookie);
      // Resolved once, the session sits in the replica's cache (its clock stands still here).
      expect((await onReplica.get('/api/auth/me')).status).to.equal(200);
      expect((await confirm(await resetToken(customer.email))).status).to.equal(200);
      // Without the revocation the replica would serve the cached session for as long as its clock stands still.
      expect(await meStatusWithin(onReplica, 1000)).to.equal(401);
    } finally {
      await replica.stop();
    }
  });

  describe('pages', () => {
    const postForm = (path: string, fields: Record<string, string>) =>
      stack.client().request<string>('POST', path, {
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SITE, ...from() },
      });

    it('the log-in page links to "Forgot password"; its form mails the link, answering any email alike', async () => {
      const login = await stack.client().get<string>('/account/login');
      expect(login.text).to.contain('<a href="/account/forgot-password">Forgot password</a>');
      const forgot = await stack.client().get<string>('/account/forgot-password');
      expect(forgot.text)
        .to.contain('<label for="email">Email</label>')
        .and.contain('<button type="submit">Send reset link</button>');
      const { customer } = await signUp(stack.client());
      const known = await postForm('/account/forgot-password', { email: customer.email });
      const unknown = await postForm('/account/forgot-password', { email: `nobody-page-${Date.now()}@example.test` });
      expect(known.status).to.equal(200);
      expect(unknown.text).to.equal(known.text);
      expect(known.text).to.contain('Check your email');
      expect(await mailsWith(customer.email, 'Reset your password', 1)).to.have.length(1);
    });

    it('the link\'s page sets the new password with "New password" and "Set password", once', async () => {
      const { customer } = await signUp(stack.client());
      const token = await resetToken(customer.email);
      const page = await stack.client().get<string>(`/account/reset-password?token=${token}`);
      expect(page.headers.get('cache-control')).to.contain('no-store');
      expect(page.text)
        .to.contain('<label for="password">New password</label>')
        .and.contain('<button type="submit">Set password</button>')
        .and.contain(`name="token" value="${token}"`);
      const changed = await postForm('/account/reset-password', { token, password: NEW_PASSWORD });
      expect(changed.status).to.equal(200);
      expect(changed.text).to.contain('Password changed');
      const again = await postForm('/account/reset-password', { token, password: NEW_PASSWORD });
      expect(again.status).to.equal(400);
      expect(again.text).to.contain('The reset link is invalid, was used already or has expired');
      expect((await logIn(stack.client(), customer.email, NEW_PASSWORD)).status).to.equal(200);
    });
  });
});
