/**
 * Staff accounts of the console: set-up links, password plus TOTP logins, recovery codes, sessions, disabling, the
 * audit log.
 */
import { expect } from 'chai';
import { generateSync } from 'otplib';
import { AppError } from '@storefront/errors';
import { windowCountersFor } from '@storefront/rate-limit';
import { dialectOf } from '@storefront/db';
import { exportStaffActions, opsActor } from '@storefront/staff-audit';
import { ManualClock } from '@storefront/testing';
import { PasswordHasher } from '../src/domain/passwords';
import { STAFF_SESSION_IDLE_SECONDS, STAFF_SESSION_MAX_SECONDS, StaffAccounts } from '../src/domain/staff-accounts';
import { SETUP_LINK_LIFETIME_MS, StaffRoster, parseStaffRole, staffStateOf } from '../src/domain/staff-roster';
import { hashSessionToken, newSessionToken } from '../src/domain/session-tokens';
import { RedisSessionStore, SqlSessionStore, type SessionStore } from '../src/stores/sessions';
import { StaffStore } from '../src/stores/staff';
import { openStores, type StoreHarness } from './support';

const LIMITS = {
  failedLoginsPerAccount: { max: 100, windowSeconds: 900 },
  failedLoginsPerAddress: { max: 100, windowSeconds: 900 },
  loginBackoff: { freeFailures: 3, baseSeconds: 30, maxSeconds: 900, memorySeconds: 86_400 },
  recentSignInSeconds: 30 * 86_400,
  secondFactorBackoff: { freeFailures: 3, baseSeconds: 30, maxSeconds: 900, memorySeconds: 86_400 },
  signupsPerAddress: { max: 2, windowSeconds: 3600 },
};
const PASSWORD = 'correct horse battery staple';
const ADDRESS = '203.0.113.9';
const OPERATOR = opsActor('operator');
/** The binding cookie of the browser that opens set-up links in these tests. */
const BROWSER = 'b'.repeat(43);

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'expected a refusal').to.be.instanceOf(AppError);
  return error as AppError;
}

describe('identity staff accounts', () => {
  let harness: StoreHarness;
  let roster: StaffRoster;
  let staff: StaffAccounts;
  let sessions: SessionStore;
  const clock = new ManualClock();
  const codeAt = (secret: string, ms = clock.ms) => generateSync({ secret, epoch: Math.floor(ms / 1000) });

  before(async () => {
    harness = await openStores();
    const store = new StaffStore(harness.db);
    roster = new StaffRoster(store, clock.now);
    sessions = harness.redis
      ? new RedisSessionStore(harness.redis, 'staff-session')
      : new SqlSessionStore(harness.db, 'staff_sessions', 'staff_id');
    staff = new StaffAccounts({
      staff: store,
      sessions,
      counters: windowCountersFor(harness.db, dialectOf(harness.db), harness.redis),
      hasher: await PasswordHasher.create({
        memoryKib: 1024,
        timeCost: 1,
        parallelism: 1,
        maxConcurrent: 2,
        maxWaiting: 50,
      }),
      limits: LIMITS,
      now: clock.now,
      mailQueued: () => undefined,
    });
  });
  after(() => harness.close());

  const completeSetup = (setupToken: string, password: string, code: string, browserBinding = BROWSER) =>
    staff.completeSetup({ setupToken, browserBinding, password, code, clientAddress: ADDRESS });

  /** A member who has used their set-up link: their secret and recovery codes. */
  async function setUp(email: string): Promise<{ secret: string; recoveryCodes: string[] }> {
    const { setupToken } = await roster.add(email, 'staff', OPERATOR);
    const offer = await staff.setupOffer(setupToken, BROWSER);
    const { recoveryCodes } = await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    // The code used to confirm the set-up is spent: the next login waits for the next step.
    clock.advance(30_000);
    return { secret: offer.totpSecret, recoveryCodes };
  }

  it('offers the same TOTP secret until the set-up is confirmed, as text and an otpauth URI', async () => {
    const { setupToken } = await roster.add('Offer@Example.com', 'owner', OPERATOR);
    const first = await staff.setupOffer(setupToken, BROWSER);
    const again = await staff.setupOffer(setupToken, BROWSER);
    expect(again.totpSecret).to.equal(first.totpSecret);
    expect(first.member).to.include({ email: 'offer@example.com', role: 'owner' });
    expect(first.otpauthUri).to.match(/^otpauth:\/\/totp\/.*offer%40example\.com\?secret=[A-Z2-7]+/);
  });

  it('refuses a second staff member with the same email, and an unknown role', async () => {
    await roster.add('twice@example.com', 'staff', OPERATOR);
    expect((await refusal(roster.add('TWICE@example.com', 'owner', OPERATOR))).code).to.equal('staff_exists');
    expect(() => parseStaffRole('admin')).to.throw(AppError, /role must be one of owner, staff/);
  });

  it('works once: a used set-up link is refused', async () => {
    const { setupToken } = await roster.add('once@example.com', 'staff', OPERATOR);
    const offer = await staff.setupOffer(setupToken, BROWSER);
    const { recoveryCodes } = await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    expect((await refusal(staff.setupOffer(setupToken, BROWSER))).code).to.equal('setup_link_invalid');
    expect((await refusal(completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret)))).code).to.equal(
      'setup_link_invalid',
    );
  });

  it('expires a set-up link after a day', async () => {
    const { setupToken } = await roster.add('late@example.com', 'staff', OPERATOR);
    clock.advance(SETUP_LINK_LIFETIME_MS);
    expect((await refusal(staff.setupOffer(setupToken, BROWSER))).code).to.equal('setup_link_invalid');
  });

  it('a reissued link replaces the old one', async () => {
    const { setupToken: lost } = await roster.add('lost@example.com', 'staff', OPERATOR);
    const { setupToken } = await roster.reissueSetup('lost@example.com', OPERATOR);
    expect((await refusal(staff.setupOffer(lost, BROWSER))).code).to.equal('setup_link_invalid');
    expect((await staff.setupOffer(setupToken, BROWSER)).member.email).to.equal('lost@example.com');
  });

  it('sets up only with a current code from the offered secret and a password of at least 12 characters', async () => {
    const { setupToken } = await roster.add('strict@example.com', 'staff', OPERATOR);
    const offer = await staff.setupOffer(setupToken, BROWSER);
    expect((await refusal(completeSetup(setupToken, 'short pass', codeAt(offer.totpSecret)))).detail).to.match(
      /at least 12 characters/,
    );
    expect(
      (await refusal(completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret, clock.ms - 120_000)))).code,
    ).to.equal('invalid_totp');
    expect((await refusal(completeSetup(setupToken, PASSWORD, 'abcdef'))).code).to.equal('invalid_totp');
  });

  it('logs in with password and a current code, once per code, and refuses a wrong code', async () => {
    const { secret } = await setUp('login@example.com');
    const wrongCode = String((Number(codeAt(secret)) + 1) % 1_000_000).padStart(6, '0');
    expect(
      (
        await refusal(
          staff.logIn({ email: 'login@example.com', password: PASSWORD, code: wrongCode, clientAddress: ADDRESS }),
        )
      ).code,
    ).to.equal('invalid_credentials');
    const code = codeAt(secret);
    const { member, session } = await staff.logIn({
      email: 'LOGIN@example.com',
      password: PASSWORD,
      code,
      clientAddress: ADDRESS,
    });
    expect(member.email).to.equal('login@example.com');
    expect(session.maxAgeSeconds).to.equal(STAFF_SESSION_MAX_SECONDS);
    expect((await staff.resolveSession(session.token)).member.id).to.equal(member.id);
    expect(
      (await refusal(staff.logIn({ email: 'login@example.com', password: PASSWORD, code, clientAddress: ADDRESS })))
        .code,
      'a code is spent',
    ).to.equal('invalid_credentials');
    expect(
      (
        await refusal(
          staff.logIn({
            email: 'login@example.com',
            password: 'not the password',
            code: codeAt(secret, clock.ms + 30_000),
            clientAddress: ADDRESS,
          }),
        )
      ).code,
    ).to.equal('invalid_credentials');
  });

  it('takes each recovery code once, written in any case and with or without its dash', async () => {
    const { recoveryCodes } = await setUp('recovery@example.com');
    const typed = recoveryCodes[0]!.replace('-', '').toLowerCase();
    await staff.logIn({ email: 'recovery@example.com', password: PASSWORD, code: typed, clientAddress: ADDRESS });
    expect(
      (
        await refusal(
          staff.logIn({
            email: 'recovery@example.com',
            password: PASSWORD,
            code: recoveryCodes[0]!,
            clientAddress: ADDRESS,
          }),
        )
      ).code,
    ).to.equal('invalid_credentials');
    await staff.logIn({
      email: 'recovery@example.com',
      password: PASSWORD,
      code: recoveryCodes[1]!,
      clientAddress: ADDRESS,
    });
  });

  it('slows down repeated failures like customer logins, on counters of its own', async () => {
    const { secret } = await setUp('backoff@example.com');
    const address = '198.51.100.77';
    for (let attempt = 0; attempt < LIMITS.loginBackoff.freeFailures; attempt += 1) {
      await refusal(
        staff.logIn({
          email: 'backoff@example.com',
          password: 'wrong password!',
          code: codeAt(secret),
          clientAddress: address,
        }),
      );
    }
    const refused = await refusal(
      staff.logIn({ email: 'backoff@example.com', password: PASSWORD, code: codeAt(secret), clientAddress: address }),
    );
    expect(refused.kind).to.equal('rate_limited');
    expect(refused.retryAfterSeconds).to.be.greaterThan(0);
  });

  /** A session of a member set up as `email`, and the member's secret. */
  async function loggedIn(email: string, address = ADDRESS) {
    const { secret, recoveryCodes } = await setUp(email);
    const { session } = await staff.logIn({ email, password: PASSWORD, code: codeAt(secret), clientAddress: address });
    return { session, secret, recoveryCodes };
  }

  it('extends a session at each use and ends it after 2 idle hours', async () => {
    const { session } = await loggedIn('idle@example.com');
    clock.advance(STAFF_SESSION_IDLE_SECONDS * 1000 - 60_000);
    const extended = await staff.resolveSession(session.token);
    expect(extended.expiresAt).to.equal(clock.ms + STAFF_SESSION_IDLE_SECONDS * 1000);
    clock.advance(STAFF_SESSION_IDLE_SECONDS * 1000 - 60_000);
    await staff.resolveSession(session.token);
    clock.advance(STAFF_SESSION_IDLE_SECONDS * 1000);
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
  });

  it('ends a session 12 hours after the login however often it is used', async () => {
    const { session } = await loggedIn('absolute@example.com');
    expect(session.maxAgeSeconds, 'the cookie lives no longer than the session').to.equal(STAFF_SESSION_MAX_SECONDS);
    const loginAt = clock.ms;
    while (clock.ms + 10 * 60_000 < loginAt + STAFF_SESSION_MAX_SECONDS * 1000) {
      clock.advance(10 * 60_000);
      const { expiresAt } = await staff.resolveSession(session.token);
      expect(expiresAt).to.be.at.most(loginAt + STAFF_SESSION_MAX_SECONDS * 1000);
    }
    clock.advance(loginAt + 13 * 3600_000 - clock.ms);
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
  });

  it('ends every session of a member whose credentials are reset, and the old password and codes stop working', async () => {
    const { session, secret, recoveryCodes } = await loggedIn('reset-ends@example.com');
    clock.advance(1000);
    const { setupToken } = await roster.reissueSetup('reset-ends@example.com', OPERATOR);
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
    clock.advance(30_000);
    for (const code of [codeAt(secret), recoveryCodes[0]!])
      expect(
        (
          await refusal(
            staff.logIn({ email: 'reset-ends@example.com', password: PASSWORD, code, clientAddress: ADDRESS }),
          )
        ).code,
      ).to.equal('invalid_credentials');
    const offer = await staff.setupOffer(setupToken, BROWSER);
    expect(offer.totpSecret, 'a new secret').to.not.equal(secret);
  });

  it('ends the sessions made before a completed new set-up, even one a racing login made after the reset', async () => {
    await setUp('setup-ends@example.com');
    const { member, setupToken } = await roster.reissueSetup('setup-ends@example.com', OPERATOR);
    // A login that checked the old credentials just before the reset and wrote its session just after it.
    clock.advance(1000);
    const raced = newSessionToken();
    await sessions.create(hashSessionToken(raced), {
      userId: member.id,
      createdAt: clock.ms,
      expiresAt: clock.ms + STAFF_SESSION_IDLE_SECONDS * 1000,
    });
    expect((await staff.resolveSession(raced)).member.id).to.equal(member.id);
    clock.advance(1000);
    const offer = await staff.setupOffer(setupToken, BROWSER);
    await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    expect((await refusal(staff.resolveSession(raced))).kind).to.equal('unauthenticated');
    clock.advance(30_000);
    const { session: fresh } = await staff.logIn({
      email: 'setup-ends@example.com',
      password: PASSWORD,
      code: codeAt(offer.totpSecret),
      clientAddress: ADDRESS,
    });
    expect((await staff.resolveSession(fresh.token)).member.email).to.equal('setup-ends@example.com');
  });

  it('shows the set-up secret only to the browser that opened the link first, which alone completes it', async () => {
    const { setupToken } = await roster.add('bound@example.com', 'staff', OPERATOR);
    const offer = await staff.setupOffer(setupToken, BROWSER);
    const preview = 'p'.repeat(43);
    expect((await refusal(staff.setupOffer(setupToken, preview))).code).to.equal('setup_link_bound');
    expect((await refusal(staff.setupOffer(setupToken, 'not a binding'))).code).to.equal('setup_link_bound');
    expect((await refusal(completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret), preview))).code).to.equal(
      'setup_link_bound',
    );
    expect((await staff.setupOffer(setupToken, BROWSER)).totpSecret).to.equal(offer.totpSecret);
    await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    // A reset link is bound afresh.
    const { setupToken: again } = await roster.reissueSetup('bound@example.com', OPERATOR);
    expect((await staff.setupOffer(again, preview)).member.email).to.equal('bound@example.com');
    expect((await refusal(staff.setupOffer(again, BROWSER))).code).to.equal('setup_link_bound');
  });

  it('re-enables a disabled member for an owner only, from a new set-up, with nothing old working again', async () => {
    const { session, secret, recoveryCodes } = await loggedIn('back@example.com');
    await roster.disable('back@example.com', OPERATOR);
    const clerk = { id: 'clerk-id', role: 'staff' as const, email: 'clerk@example.com', clientAddress: ADDRESS };
    expect((await refusal(roster.reenable('back@example.com', clerk))).code).to.equal('staff_role_refused');
    const owner = { id: 'owner-id', role: 'owner' as const, email: 'owner@example.com', clientAddress: ADDRESS };
    clock.advance(1000);
    const { setupToken } = await roster.reenable('BACK@example.com', owner);
    expect((await refusal(roster.reenable('back@example.com', owner))).code).to.equal('staff_not_disabled');
    expect((await refusal(staff.resolveSession(session.token))).kind, 'the old session').to.equal('unauthenticated');
    clock.advance(30_000);
    for (const code of [codeAt(secret), recoveryCodes[0]!])
      expect(
        (await refusal(staff.logIn({ email: 'back@example.com', password: PASSWORD, code, clientAddress: ADDRESS })))
          .code,
        'the old password and codes',
      ).to.equal('invalid_credentials');
    const offer = await staff.setupOffer(setupToken, BROWSER);
    await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    clock.advance(30_000);
    await staff.logIn({
      email: 'back@example.com',
      password: PASSWORD,
      code: codeAt(offer.totpSecret),
      clientAddress: ADDRESS,
    });
    expect((await refusal(roster.reenable('nobody@example.com', owner))).code).to.equal('staff_not_found');
  });

  it('records every change to an account and its refusals, under who made them', async () => {
    const since = clock.ms;
    const owner = { id: 'owner-id', role: 'owner' as const, email: 'owner@example.com', clientAddress: '192.0.2.1' };
    const clerk = { id: 'clerk-id', role: 'staff' as const, email: 'clerk@example.com', clientAddress: '192.0.2.2' };
    const { setupToken } = await roster.add('Life@Example.com', 'owner', OPERATOR);
    const offer = await staff.setupOffer(setupToken, BROWSER);
    await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    await roster.reissueSetup('life@example.com', OPERATOR);
    await roster.disable('life@example.com', OPERATOR);
    await refusal(roster.reenable('life@example.com', clerk));
    await roster.reenable('life@example.com', owner);
    const entries = (await exportStaffActions(harness.db, since)).filter(
      (entry) => entry.subject === 'life@example.com',
    );
    expect(
      entries.map(({ action, staffEmail, role, clientAddress }) => ({ action, staffEmail, role, clientAddress })),
    ).to.deep.equal([
      { action: 'staff_added', staffEmail: 'operator', role: 'owner', clientAddress: 'ops-cli' },
      { action: 'setup_completed', staffEmail: 'life@example.com', role: 'owner', clientAddress: ADDRESS },
      { action: 'staff_reset', staffEmail: 'operator', role: 'owner', clientAddress: 'ops-cli' },
      { action: 'staff_disabled', staffEmail: 'operator', role: 'owner', clientAddress: 'ops-cli' },
      { action: 'role_refused', staffEmail: 'clerk@example.com', role: 'staff', clientAddress: '192.0.2.2' },
      { action: 'staff_reenabled', staffEmail: 'owner@example.com', role: 'owner', clientAddress: '192.0.2.1' },
    ]);
    expect(entries[0]!.after).to.deep.equal({ role: 'owner' });
    expect(entries[4]!.after).to.deep.equal({ refused: 'staff_reenabled' });
  });

  it('records recovery-code logins and logins refused by the limits as such', async () => {
    const { secret, recoveryCodes } = await setUp('kinds@example.com');
    const since = clock.ms;
    await staff.logIn({
      email: 'kinds@example.com',
      password: PASSWORD,
      code: recoveryCodes[0]!,
      clientAddress: ADDRESS,
    });
    const address = '198.51.100.78';
    for (let attempt = 0; attempt < LIMITS.loginBackoff.freeFailures; attempt += 1)
      await refusal(
        staff.logIn({
          email: 'kinds@example.com',
          password: 'wrong password!',
          code: codeAt(secret),
          clientAddress: address,
        }),
      );
    const limited = await refusal(
      staff.logIn({ email: 'kinds@example.com', password: PASSWORD, code: codeAt(secret), clientAddress: address }),
    );
    expect(limited.kind).to.equal('rate_limited');
    const actions = (await exportStaffActions(harness.db, since))
      .filter((entry) => entry.staffEmail === 'kinds@example.com')
      .map(({ action, clientAddress }) => `${action} ${clientAddress}`);
    expect(actions).to.deep.equal([
      `login_recovery_code ${ADDRESS}`,
      ...Array<string>(LIMITS.loginBackoff.freeFailures).fill(`login_failed ${address}`),
      `login_rate_limited ${address}`,
    ]);
  });

  it("ends a disabled member's sessions at once and refuses their logins", async () => {
    const { secret } = await setUp('gone@example.com');
    const { session } = await staff.logIn({
      email: 'gone@example.com',
      password: PASSWORD,
      code: codeAt(secret),
      clientAddress: ADDRESS,
    });
    await roster.disable('gone@example.com', OPERATOR);
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
    clock.advance(30_000);
    expect(
      (
        await refusal(
          staff.logIn({ email: 'gone@example.com', password: PASSWORD, code: codeAt(secret), clientAddress: ADDRESS }),
        )
      ).code,
    ).to.equal('invalid_credentials');
    expect((await refusal(roster.disable('gone@example.com', OPERATOR))).code).to.equal('staff_disabled');
    expect((await refusal(roster.disable('nobody@example.com', OPERATOR))).code).to.equal('staff_not_found');
  });

  it('lists each member with their state and their last successful login', async () => {
    const listed = async (email: string) => {
      const entry = (await roster.list()).find(({ member }) => member.email === email)!;
      return { state: staffStateOf(entry.member), lastLoginAt: entry.lastLoginAt };
    };
    const { setupToken } = await roster.add('listed@example.com', 'staff', OPERATOR);
    expect(await listed('listed@example.com')).to.deep.equal({ state: 'setup_pending', lastLoginAt: undefined });
    const offer = await staff.setupOffer(setupToken, BROWSER);
    await completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    expect(await listed('listed@example.com')).to.deep.equal({ state: 'active', lastLoginAt: undefined });
    clock.advance(30_000);
    const loggedInAt = clock.ms;
    await staff.logIn({
      email: 'listed@example.com',
      password: PASSWORD,
      code: codeAt(offer.totpSecret),
      clientAddress: ADDRESS,
    });
    clock.advance(30_000);
    // A failed login is no login.
    await refusal(
      staff.logIn({ email: 'listed@example.com', password: 'wrong password!', code: '000000', clientAddress: ADDRESS }),
    );
    expect(await listed('listed@example.com')).to.deep.equal({ state: 'active', lastLoginAt: loggedInAt });
    await roster.disable('listed@example.com', OPERATOR);
    expect(await listed('listed@example.com')).to.deep.equal({ state: 'disabled', lastLoginAt: loggedInAt });
  });

  it('writes logins, failed logins and logouts to the audit log with the address', async () => {
    const { secret } = await setUp('audited@example.com');
    const since = clock.ms;
    await refusal(
      staff.logIn({
        email: 'audited@example.com',
        password: 'wrong password!',
        code: codeAt(secret),
        clientAddress: ADDRESS,
      }),
    );
    const { session } = await staff.logIn({
      email: 'audited@example.com',
      password: PASSWORD,
      code: codeAt(secret),
      clientAddress: ADDRESS,
    });
    await staff.logOut(session.token, '2001:db8::1');
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
    const entries = (await exportStaffActions(harness.db, since)).filter(
      (entry) => entry.staffEmail === 'audited@example.com',
    );
    expect(entries.map(({ action, clientAddress }) => ({ action, clientAddress }))).to.deep.equal([
      { action: 'login_failed', clientAddress: ADDRESS },
      { action: 'login', clientAddress: ADDRESS },
      { action: 'logout', clientAddress: '2001:db8::1' },
    ]);
  });
});
