/**
 * Staff accounts of the console: set-up links, password plus TOTP logins, recovery codes, sessions, disabling, the
 * audit log.
 */
import { expect } from 'chai';
import { generateSync } from 'otplib';
import { AppError } from '@storefront/errors';
import { windowCountersFor } from '@storefront/rate-limit';
import { dialectOf } from '@storefront/db';
import { exportStaffActions } from '@storefront/staff-audit';
import { ManualClock } from '@storefront/testing';
import { PasswordHasher } from '../src/domain/passwords';
import { STAFF_SESSION_IDLE_SECONDS, StaffAccounts } from '../src/domain/staff-accounts';
import { SETUP_LINK_LIFETIME_MS, StaffRoster, parseStaffRole } from '../src/domain/staff-roster';
import { RedisSessionStore, SqlSessionStore } from '../src/stores/sessions';
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
  const clock = new ManualClock();
  const codeAt = (secret: string, ms = clock.ms) => generateSync({ secret, epoch: Math.floor(ms / 1000) });

  before(async () => {
    harness = await openStores();
    const store = new StaffStore(harness.db);
    roster = new StaffRoster(store, clock.now);
    staff = new StaffAccounts({
      staff: store,
      sessions: harness.redis
        ? new RedisSessionStore(harness.redis, 'staff-session')
        : new SqlSessionStore(harness.db, 'staff_sessions', 'staff_id'),
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

  /** A member who has used their set-up link: their secret and recovery codes. */
  async function setUp(email: string): Promise<{ secret: string; recoveryCodes: string[] }> {
    const { setupToken } = await roster.add(email, 'staff');
    const offer = await staff.setupOffer(setupToken);
    const { recoveryCodes } = await staff.completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    // The code used to confirm the set-up is spent: the next login waits for the next step.
    clock.advance(30_000);
    return { secret: offer.totpSecret, recoveryCodes };
  }

  it('offers the same TOTP secret until the set-up is confirmed, as text and an otpauth URI', async () => {
    const { setupToken } = await roster.add('Offer@Example.com', 'owner');
    const first = await staff.setupOffer(setupToken);
    const again = await staff.setupOffer(setupToken);
    expect(again.totpSecret).to.equal(first.totpSecret);
    expect(first.member).to.include({ email: 'offer@example.com', role: 'owner' });
    expect(first.otpauthUri).to.match(/^otpauth:\/\/totp\/.*offer%40example\.com\?secret=[A-Z2-7]+/);
  });

  it('refuses a second staff member with the same email, and an unknown role', async () => {
    await roster.add('twice@example.com', 'staff');
    expect((await refusal(roster.add('TWICE@example.com', 'owner'))).code).to.equal('staff_exists');
    expect(() => parseStaffRole('admin')).to.throw(AppError, /role must be one of owner, staff/);
  });

  it('works once: a used set-up link is refused', async () => {
    const { setupToken } = await roster.add('once@example.com', 'staff');
    const offer = await staff.setupOffer(setupToken);
    const { recoveryCodes } = await staff.completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret));
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    expect((await refusal(staff.setupOffer(setupToken))).code).to.equal('setup_link_invalid');
    expect((await refusal(staff.completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret)))).code).to.equal(
      'setup_link_invalid',
    );
  });

  it('expires a set-up link after a day', async () => {
    const { setupToken } = await roster.add('late@example.com', 'staff');
    clock.advance(SETUP_LINK_LIFETIME_MS);
    expect((await refusal(staff.setupOffer(setupToken))).code).to.equal('setup_link_invalid');
  });

  it('a reissued link replaces the old one', async () => {
    const { setupToken: lost } = await roster.add('lost@example.com', 'staff');
    const { setupToken } = await roster.reissueSetup('lost@example.com');
    expect((await refusal(staff.setupOffer(lost))).code).to.equal('setup_link_invalid');
    expect((await staff.setupOffer(setupToken)).member.email).to.equal('lost@example.com');
  });

  it('sets up only with a current code from the offered secret and a password of at least 12 characters', async () => {
    const { setupToken } = await roster.add('strict@example.com', 'staff');
    const offer = await staff.setupOffer(setupToken);
    expect((await refusal(staff.completeSetup(setupToken, 'short pass', codeAt(offer.totpSecret)))).detail).to.match(
      /at least 12 characters/,
    );
    expect(
      (await refusal(staff.completeSetup(setupToken, PASSWORD, codeAt(offer.totpSecret, clock.ms - 120_000)))).code,
    ).to.equal('invalid_totp');
    expect((await refusal(staff.completeSetup(setupToken, PASSWORD, 'abcdef'))).code).to.equal('invalid_totp');
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
    expect(session.maxAgeSeconds).to.equal(STAFF_SESSION_IDLE_SECONDS);
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

  it('extends a session at each use and ends it after 12 idle hours', async () => {
    const { secret } = await setUp('idle@example.com');
    const { session } = await staff.logIn({
      email: 'idle@example.com',
      password: PASSWORD,
      code: codeAt(secret),
      clientAddress: ADDRESS,
    });
    clock.advance(11 * 3600_000);
    const extended = await staff.resolveSession(session.token);
    expect(extended.expiresAt).to.equal(clock.ms + STAFF_SESSION_IDLE_SECONDS * 1000);
    clock.advance(11 * 3600_000);
    await staff.resolveSession(session.token);
    clock.advance(STAFF_SESSION_IDLE_SECONDS * 1000);
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
  });

  it("ends a disabled member's sessions at once and refuses their logins", async () => {
    const { secret } = await setUp('gone@example.com');
    const { session } = await staff.logIn({
      email: 'gone@example.com',
      password: PASSWORD,
      code: codeAt(secret),
      clientAddress: ADDRESS,
    });
    await roster.disable('gone@example.com');
    expect((await refusal(staff.resolveSession(session.token))).kind).to.equal('unauthenticated');
    clock.advance(30_000);
    expect(
      (
        await refusal(
          staff.logIn({ email: 'gone@example.com', password: PASSWORD, code: codeAt(secret), clientAddress: ADDRESS }),
        )
      ).code,
    ).to.equal('invalid_credentials');
    expect((await refusal(roster.disable('gone@example.com'))).code).to.equal('staff_disabled');
    expect((await refusal(roster.disable('nobody@example.com'))).code).to.equal('staff_not_found');
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
