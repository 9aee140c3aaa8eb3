/**
 * Verified addresses and a signed-in customer's own changes, through the gateway with a real SMTP server receiving
 * every mail (finding 9 and item 7 of the second security review): sign-up mails only a link carrying the first name,
 * the welcome follows its use; an unverified account signs in but is sent nothing else; the password changes with the
 * current one, ending every other session; the email changes once the new address's link is used, the old address
 * told. The API, and the pages' forms.
 */
import { expect } from 'chai';
import type { ParsedMail } from 'mailparser';
import { startTestSmtpServer, type HttpClient, type TestSmtpServer } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { FAST_ARGON2, PASSWORD, meStatusWithin, signUp, type AuthSuccess, type ErrorBody } from './auth-fixtures';

const SITE = 'http://127.0.0.1:9';
const DAY = 24 * 3600_000;
const NEW_PASSWORD = 'quiet-lantern-58';
const CONFIRM_SUBJECT = 'Confirm your email address';
const WELCOME_SUBJECT = 'Welcome to Storefront Research Supplies';

type ProfileWithEmail = AuthSuccess['user']['profile'] & { emailVerifiedAt?: string; pendingEmail?: string };

describe('gateway: verified addresses, password and email changes', () => {
  let smtp: TestSmtpServer;
  let stack: Stack;
  let nowMs = Date.now();
  let addresses = 0;
  const from = () => ({ 'x-forwarded-for': `198.51.100.${(addresses += 1) % 250}` });

  before(async () => {
    smtp = await startTestSmtpServer();
    // Every service: the account page shows the account's orders too.
    stack = await startStack({
      now: () => nowMs,
      env: {
        ...FAST_ARGON2,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Shop <accounts@shop.test>',
        MAIL_POLL_INTERVAL_MS: '50',
        PUBLIC_BASE_URL: SITE,
        TRUSTED_PROXIES: '127.0.0.1',
      },
    });
  });
  after(async () => {
    await stack?.stop();
    await smtp?.stop();
  });

  const mailsTo = (email: string) => smtp.received.filter((mail) => (mail.to as { text: string }).text === email);

  /** The mails to `email` once every queued mail is out. */
  async function mailsAfterSending(email: string): Promise<ParsedMail[]> {
    await stack.identity!.sendMailNow();
    return mailsTo(email);
  }

  async function mailsWith(email: string, subject: string, count: number): Promise<ParsedMail[]> {
    const matching = () => mailsTo(email).filter((mail) => mail.subject === subject);
    for (let waited = 0; matching().length < count && waited < 5_000; waited += 50) {
      await stack.identity!.sendMailNow();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return matching();
  }

  /** The token of the newest verification link mailed to `email`. */
  async function verificationToken(email: string, count = 1): Promise<string> {
    const mails = await mailsWith(email, CONFIRM_SUBJECT, count);
    expect(mails, `verification mails to ${email}`).to.have.length(count);
    const link = new RegExp(`${SITE}/account/verify-email\\?token=([A-Za-z0-9_-]{43})`).exec(mails.at(-1)!.text ?? '');
    expect(link, mails.at(-1)!.text).to.not.equal(null);
    return link![1]!;
  }

  const verify = (token: string) => stack.client().post<ErrorBody>('/api/auth/verify-email', { token }, from());
  const me = async (client: HttpClient) =>
    (await client.get<AuthSuccess>('/api/auth/me')).body.user.profile as ProfileWithEmail;
  const logIn = (email: string, password: string) =>
    stack.client().post('/api/auth/login', { email, password }, from());

  describe('sign-up (finding 9)', () => {
    it('keeps 409 email_taken, and mails only a link carrying nothing of the signer but the first name', async () => {
      const client = stack.client();
      const { customer, profile } = await signUp(client, {
        firstName: 'Ada',
        lastName: 'See https://evil.example/win',
        phone: '+44 20 7946 0999',
      });
      expect(profile).to.not.have.property('emailVerifiedAt');
      const again = await stack.client().post<ErrorBody>('/api/auth/signup', { ...customer }, from());
      expect(again.status).to.equal(409);
      expect(again.body).to.deep.include({ success: false, error: 'email_taken' });

      await verificationToken(customer.email);
      const [link, ...others] = await mailsAfterSending(customer.email);
      expect(others, 'nothing but the link').to.have.length(0);
      expect(link!.subject).to.equal(CONFIRM_SUBJECT);
      expect(link!.text).to.contain('Hello Ada,');
      for (const body of [link!.text ?? '', link!.html || '']) {
        expect(body).to.not.contain('evil.example').and.not.contain('7946').and.not.contain(profile.referralCode);
      }
      // The one URL of the mail is the shop's own.
      const urls = (link!.text ?? '').match(/https?:\/\/\S+/g) ?? [];
      expect(urls).to.have.length(1);
      expect(urls[0]).to.match(new RegExp(`^${SITE}/account/verify-email\\?token=`));
    });

    it('an unverified account signs in and is sent nothing but the link; the link verifies it once, and the welcome follows', async () => {
      const { customer } = await signUp(stack.client());
      const token = await verificationToken(customer.email);
      expect((await logIn(customer.email, PASSWORD)).status).to.equal(200);
      expect((await mailsAfterSending(customer.email)).map((mail) => mail.subject)).to.deep.equal([CONFIRM_SUBJECT]);

      const page = await stack.client().get<string>(`/account/verify-email?token=${token}`);
      expect(page.status).to.equal(200);
      expect(page.headers.get('cache-control')).to.contain('no-store');
      expect(page.text)
        .to.contain('<button type="submit">Confirm this address</button>')
        .and.contain(`name="token" value="${token}"`);

      const done = await verify(token);
      expect(done.status, done.text).to.equal(200);
      expect(done.body).to.deep.equal({ success: true });
      const client = stack.client();
      expect(
        (await client.post('/api/auth/login', { email: customer.email, password: PASSWORD }, from())).status,
      ).to.equal(200);
      expect(Date.parse((await me(client)).emailVerifiedAt!)).to.equal(nowMs);
      const welcome = await mailsWith(customer.email, WELCOME_SUBJECT, 1);
      expect(welcome).to.have.length(1);
      expect(welcome[0]!.text).to.contain('100 loyalty points').and.contain(`${SITE}/account`);

      const again = await verify(token);
      expect(again.status).to.equal(400);
      expect(again.body).to.deep.include({ success: false, error: 'invalid_verification_token' });
      const welcomes = (await mailsAfterSending(customer.email)).filter((mail) => mail.subject === WELCOME_SUBJECT);
      expect(welcomes).to.have.length(1);
    });

    it('refuses a link a day old, and a malformed token, with a clear 400', async () => {
      const { customer } = await signUp(stack.client());
      const token = await verificationToken(customer.email);
      nowMs += DAY;
      expect((await verify(token)).body).to.deep.include({ error: 'invalid_verification_token' });
      const malformed = await verify('short');
      expect(malformed.status).to.equal(400);
      expect(malformed.body.detail).to.match(/^token /);
    });

    it("the link's page confirms the address with its button, and says so when the link is used", async () => {
      const { customer } = await signUp(stack.client());
      const token = await verificationToken(customer.email);
      const confirmed = await postForm(stack.client(), '/account/verify-email', { token });
      expect(confirmed.status).to.equal(200);
      expect(confirmed.text).to.contain('Email address confirmed');
      const again = await postForm(stack.client(), '/account/verify-email', { token });
      expect(again.status).to.equal(400);
      expect(again.text).to.contain('The link is invalid, was used already or has expired');
    });
  });

  /** A signed-up account whose address is verified, signed in on `client`. */
  async function verifiedCustomer(client = stack.client()) {
    const signedUp = await signUp(client);
    expect((await verify(await verificationToken(signedUp.customer.email))).status).to.equal(200);
    return signedUp;
  }

  const changePassword = (client: HttpClient, currentPassword: string, newPassword = NEW_PASSWORD) =>
    client.post<ErrorBody>('/api/auth/password', { currentPassword, newPassword }, from());
  const changeEmail = (client: HttpClient, email: string, currentPassword = PASSWORD) =>
    client.post<ErrorBody & { user: { profile: ProfileWithEmail } }>(
      '/api/auth/email',
      { email, currentPassword },
      from(),
    );

  describe('password change (item 7)', () => {
    it('needs the current password; ends every other session, keeps this one, and tells the address', async () => {
      const here = stack.client();
      const { customer } = await verifiedCustomer(here);
      const elsewhere = stack.client();
      expect(
        (await elsewhere.post('/api/auth/login', { email: customer.email, password: PASSWORD }, from())).status,
      ).to.equal(200);

      const wrong = await changePassword(here, 'not-the-password');
      expect(wrong.status).to.equal(400);
      expect(wrong.body).to.deep.include({ success: false, error: 'invalid_current_password' });
      const common = await changePassword(here, PASSWORD, 'password123');
      expect(common.body).to.deep.include({ error: 'password_too_common' });
      expect((await logIn(customer.email, PASSWORD)).status, 'nothing changed yet').to.equal(200);

      const changed = await changePassword(here, PASSWORD);
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.headers.getSetCookie().some((line) => line.startsWith('svc_sess='))).to.equal(true);
      expect((await here.get('/api/auth/me')).status).to.equal(200);
      expect((await elsewhere.get('/api/auth/me')).status).to.equal(401);
      expect((await logIn(customer.email, PASSWORD)).status).to.equal(401);
      expect((await logIn(customer.email, NEW_PASSWORD)).status).to.equal(200);
      const notices = await mailsWith(customer.email, 'Your password was changed', 1);
      expect(notices).to.have.length(1);
      expect(notices[0]!.text).to.contain('every other session was logged out');
    });

    it("ends the account's other sessions cached by another gateway replica within 1 s", async () => {
      const replica = await startStack({
        replicaOf: stack,
        now: () => nowMs,
        env: { ...FAST_ARGON2, SMTP_URL: smtp.url, PUBLIC_BASE_URL: SITE, TRUSTED_PROXIES: '127.0.0.1' },
      });
      try {
        const here = stack.client();
        const { res } = await signUp(here);
        const onReplica = new (stack.client().constructor as new (url: string) => HttpClient)(replica.gateway.url);
        onReplica.setCookie('svc_sess', /svc_sess=([^;]+)/.exec(res.headers.getSetCookie().join(';'))![1]!);
        // Resolved once, the session sits in the replica's cache (its clock stands still here).
        expect((await onReplica.get('/api/auth/me')).status).to.equal(200);
        expect((await changePassword(here, PASSWORD)).status).to.equal(200);
        expect(await meStatusWithin(onReplica, 1000)).to.equal(401);
        expect((await here.get('/api/auth/me')).status).to.equal(200);
      } finally {
        await replica.stop();
      }
    });

    it("counts a wrong current password as a failed login of the account: one address's guesses wait", async () => {
      const client = stack.client();
      const { customer } = await signUp(client);
      const guesser = { 'x-forwarded-for': '203.0.113.91' };
      const statuses: number[] = [];
      for (let guess = 0; guess < 8; guess += 1)
        statuses.push(
          (
            await client.post(
              '/api/auth/password',
              { currentPassword: `guess-${guess}-wrong`, newPassword: NEW_PASSWORD },
              guesser,
            )
          ).status,
        );
      expect(statuses.slice(0, 5)).to.deep.equal([400, 400, 400, 400, 400]);
      expect(statuses).to.include(429);
      // The same counters as a login: this address now waits to log in to the account too.
      const login = await stack
        .client()
        .post('/api/auth/login', { email: customer.email, password: PASSWORD }, guesser);
      expect(login.status).to.equal(429);
    });

    it('refuses without a session, and tells an unverified address nothing', async () => {
      expect((await changePassword(stack.client(), PASSWORD)).status).to.equal(401);
      const client = stack.client();
      const { customer } = await signUp(client);
      await verificationToken(customer.email);
      expect((await changePassword(client, PASSWORD)).status).to.equal(200);
      expect((await mailsAfterSending(customer.email)).map((mail) => mail.subject)).to.deep.equal([CONFIRM_SUBJECT]);
    });
  });

  describe('email change (item 7)', () => {
    it('counts the new address only once its link is used, then tells the old one', async () => {
      const client = stack.client();
      const { customer } = await verifiedCustomer(client);
      const newEmail = `changed-${Date.now()}@example.test`;

      const wrong = await changeEmail(client, newEmail, 'not-the-password');
      expect(wrong.status).to.equal(400);
      expect(wrong.body).to.deep.include({ error: 'invalid_current_password' });
      const other = await signUp(stack.client());
      const taken = await changeEmail(client, other.customer.email);
      expect(taken.status).to.equal(409);
      expect(taken.body).to.deep.include({ success: false, error: 'email_taken' });

      const asked = await changeEmail(client, newEmail.toUpperCase());
      expect(asked.status, asked.text).to.equal(202);
      expect(asked.body.user.profile).to.include({ email: customer.email, pendingEmail: newEmail });
      const token = await verificationToken(newEmail);
      expect((await logIn(customer.email, PASSWORD)).status, 'the old address still logs in').to.equal(200);
      expect((await logIn(newEmail, PASSWORD)).status).to.equal(401);

      expect((await verify(token)).status).to.equal(200);
      const profile = await me(client);
      expect(profile.email).to.equal(newEmail);
      expect(profile).to.not.have.property('pendingEmail');
      expect(Date.parse(profile.emailVerifiedAt!)).to.equal(nowMs);
      expect((await logIn(newEmail, PASSWORD)).status).to.equal(200);
      expect((await logIn(customer.email, PASSWORD)).status).to.equal(401);
      const told = await mailsWith(customer.email, 'Your email address was changed', 1);
      expect(told).to.have.length(1);
      expect(told[0]!.text).to.not.contain(newEmail);
      expect((await mailsAfterSending(newEmail)).map((mail) => mail.subject)).to.deep.equal([CONFIRM_SUBJECT]);
    });

    it('sends an unverified account a new link to its own address, refuses that for a verified one, and five links an hour', async () => {
      const client = stack.client();
      const { customer } = await signUp(client);
      const first = await verificationToken(customer.email);
      const again = await changeEmail(client, customer.email);
      expect(again.status, again.text).to.equal(202);
      expect(again.body.user.profile).to.not.have.property('pendingEmail');
      const second = await verificationToken(customer.email, 2);
      expect((await verify(first)).body, 'the earlier link is void').to.deep.include({
        error: 'invalid_verification_token',
      });
      expect((await verify(second)).status).to.equal(200);
      const verified = await changeEmail(client, customer.email);
      expect(verified.status).to.equal(400);
      expect(verified.body.detail).to.equal('email is already the verified address of this account');

      for (let asked = 1; asked < 5; asked += 1)
        expect((await changeEmail(client, `many-${asked}-${Date.now()}@example.test`)).status).to.equal(202);
      const limited = await changeEmail(client, `many-last-${Date.now()}@example.test`);
      expect(limited.status).to.equal(429);
      expect(limited.body).to.deep.include({ success: false, error: 'too_many_attempts' });
    });

    it('refuses the link when another account verified the address meanwhile (409)', async () => {
      const client = stack.client();
      await verifiedCustomer(client);
      const contested = `contested-${Date.now()}@example.test`;
      expect((await changeEmail(client, contested)).status).to.equal(202);
      const token = await verificationToken(contested);
      const rival = await signUp(stack.client(), { email: contested });
      expect((await verify(await verificationToken(contested, 2))).status).to.equal(200);
      const refused = await verify(token);
      expect(refused.status).to.equal(409);
      expect(refused.body).to.deep.include({ error: 'email_taken' });
      expect((await logIn(rival.customer.email, PASSWORD)).status).to.equal(200);
    });
  });

  const postForm = (client: HttpClient, path: string, fields: Record<string, string>) =>
    client.request<string>('POST', path, {
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SITE, ...from() },
    });

  describe('the account page', () => {
    it('shows the address and its state, and changes the password and the email with labelled forms', async () => {
      const client = stack.client();
      const { customer } = await signUp(client);
      const unverified = await client.get<string>('/account');
      expect(unverified.text)
        .to.contain(`${customer.email}: not confirmed yet`)
        .and.contain('<label for="currentPassword">Current password</label>')
        .and.contain('<label for="newPassword">New password</label>')
        .and.contain('<label for="email">New email address</label>')
        .and.contain('<label for="email-current-password">Current password, to change the email</label>');

      const wrong = await postForm(client, '/account/password', {
        currentPassword: 'not-the-password',
        newPassword: NEW_PASSWORD,
      });
      expect(wrong.status).to.equal(400);
      expect(wrong.text).to.contain('role="alert"').and.contain('Current password is incorrect.');
      const changed = await postForm(client, '/account/password', {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      });
      expect(changed.status).to.equal(303);
      expect(changed.headers.get('location')).to.equal('/account?saved=password');
      expect((await client.get<string>('/account?saved=password')).text).to.contain('Password changed.');

      const newEmail = `page-${Date.now()}@example.test`;
      const asked = await postForm(client, '/account/email', { email: newEmail, currentPassword: NEW_PASSWORD });
      expect(asked.status).to.equal(303);
      const pending = await client.get<string>('/account?saved=email');
      expect(pending.text)
        .to.contain(`Changing to ${newEmail} once the link mailed there is followed.`)
        .and.contain('A link is on its way to the new address');
      expect((await verify(await verificationToken(newEmail))).status).to.equal(200);
      expect((await client.get<string>('/account')).text).to.contain(`${newEmail}: confirmed`);
    });
  });
});
