/**
 * Console logins under attack (second review, findings 6 and 7), on every attempt-counter store the
 * backend under test offers: the owner's address is not locked out by one mistyped code, and the
 * right password with wrong codes from many addresses slows the account down and tells the member
 * once by mail (decisions 1120, 1122).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { generateSync } from 'otplib';
import {
  MemoryWindowCounters,
  RedisWindowCounters,
  SqlWindowCounters,
  type WindowCounters,
} from '@storefront/rate-limit';
import { OUTBOX_TABLE } from '@storefront/outbox';
import { opsActor } from '@storefront/staff-audit';
import { ManualClock, rejection, withBusyCores } from '@storefront/testing';
import { LoginThrottle, type RateLimits } from '../src/domain/login-throttle';
import { PasswordHasher } from '../src/domain/passwords';
import { StaffAccounts } from '../src/domain/staff-accounts';
import { StaffRoster } from '../src/domain/staff-roster';
import { SqlSessionStore } from '../src/stores/sessions';
import { StaffStore } from '../src/stores/staff';
import { openStores, type StoreHarness } from './support';

const LIMITS: RateLimits = {
  failedLoginsPerAccount: { max: 3, windowSeconds: 900 },
  failedLoginsPerAddress: { max: 100, windowSeconds: 900 },
  loginBackoff: { freeFailures: 3, baseSeconds: 30, maxSeconds: 900, memorySeconds: 86_400 },
  recentSignInSeconds: 30 * 86_400,
  secondFactorBackoff: { freeFailures: 3, baseSeconds: 30, maxSeconds: 900, memorySeconds: 86_400 },
  signupsPerAddress: { max: 2, windowSeconds: 3600 },
};
const PASSWORD = 'correct horse battery staple';
const OWNER_ADDRESS = '203.0.113.9';

describe('identity staff logins under attack', () => {
  let harness: StoreHarness;
  let hasher: PasswordHasher;
  before(async () => {
    harness = await openStores();
    hasher = await PasswordHasher.create({
      memoryKib: 1024,
      timeCost: 1,
      parallelism: 1,
      maxConcurrent: 2,
      maxWaiting: 100,
    });
  });
  after(() => harness.close());

  const counterStores: Array<[string, () => WindowCounters]> = [
    ['SQL', () => new SqlWindowCounters(harness.db)],
    ['Memory', () => new MemoryWindowCounters()],
  ];
  if (process.env.STOREFRONT_TEST_BACKEND === 'mysql')
    counterStores.push(['Redis', () => new RedisWindowCounters(harness.redis!)]);

  for (const [name, makeCounters] of counterStores) {
    describe(`counting in ${name}`, () => {
      const clock = new ManualClock();
      let roster: StaffRoster;
      let staff: StaffAccounts;
      let counters: WindowCounters;
      let mailsQueued = 0;
      before(() => {
        counters = makeCounters();
        const store = new StaffStore(harness.db);
        roster = new StaffRoster(store, clock.now);
        staff = new StaffAccounts({
          staff: store,
          sessions: new SqlSessionStore(harness.db, 'staff_sessions', 'staff_id'),
          counters,
          hasher,
          limits: LIMITS,
          now: clock.now,
          mailQueued: () => (mailsQueued += 1),
        });
      });

      const codeAt = (secret: string) => generateSync({ secret, epoch: Math.floor(clock.ms / 1000) });
      const wrongCode = (secret: string) => String((Number(codeAt(secret)) + 1) % 1_000_000).padStart(6, '0');
      let addresses = 0;
      const strangerAddress = () => `198.51.${Math.floor((addresses += 1) / 250)}.${addresses % 250}`;

      /** A member set up and logged in once from the owner's address; a fresh code step after. */
      async function ownerOf(): Promise<{ email: string; secret: string }> {
        const email = `member-${randomUUID()}@example.com`;
        const { setupToken } = await roster.add(email, 'owner', opsActor('operator'));
        const browserBinding = randomBytes(32).toString('base64url');
        const offer = await staff.setupOffer(setupToken, browserBinding);
        await staff.completeSetup({
          setupToken,
          browserBinding,
          password: PASSWORD,
          code: codeAt(offer.totpSecret),
          clientAddress: OWNER_ADDRESS,
        });
        clock.advance(30_000);
        await logIn(email, PASSWORD, codeAt(offer.totpSecret), OWNER_ADDRESS);
        clock.advance(30_000);
        return { email, secret: offer.totpSecret };
      }

      const logIn = (email: string, password: string, code: string, clientAddress: string) =>
        staff.logIn({ email, password, code, clientAddress });

      const warnings = (email: string) =>
        harness.db(OUTBOX_TABLE).where({ recipient: email }).andWhere('mail_key', 'like', 'second-factor-guessing:%');

      it("lets the owner's address log in after one mistyped code while attackers keep the account over its limit", async () => {
        const { email, secret } = await ownerOf();
        const attackers = Array.from({ length: 4 }, strangerAddress);
        for (const address of attackers)
          expect(await rejection(logIn(email, 'a wrong password!', wrongCode(secret), address))).to.include({
            code: 'invalid_credentials',
          });
        expect(await rejection(logIn(email, PASSWORD, wrongCode(secret), OWNER_ADDRESS))).to.include({
          code: 'invalid_credentials',
        });
        const { member } = await logIn(email, PASSWORD, codeAt(secret), OWNER_ADDRESS);
        expect(member.email).to.equal(email);
        // Attackers who failed are still refused for the account's sake.
        expect(await rejection(logIn(email, 'a wrong password!', '000000', attackers[0]!))).to.include({
          kind: 'rate_limited',
        });
      });

      it("still limits the owner's address once it has failed its free failures", async () => {
        const { email, secret } = await ownerOf();
        for (const address of Array.from({ length: 4 }, strangerAddress))
          await rejection(logIn(email, 'a wrong password!', '000000', address));
        for (let i = 0; i < LIMITS.loginBackoff.freeFailures; i += 1)
          expect(await rejection(logIn(email, PASSWORD, wrongCode(secret), OWNER_ADDRESS))).to.include({
            code: 'invalid_credentials',
          });
        expect(await rejection(logIn(email, PASSWORD, codeAt(secret), OWNER_ADDRESS))).to.include({
          kind: 'rate_limited',
        });
      });

      it('checks only the free wrong codes after the right password from 40 addresses, then makes every new address wait, and mails the member once', async () => {
        const { email, secret } = await ownerOf();
        const answers: string[] = [];
        for (let i = 0; i < 40; i += 1)
          answers.push((await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()))).code);
        expect(answers.filter((code) => code === 'invalid_credentials')).to.have.length(3);
        expect(answers.slice(3).every((code) => code === 'too_many_attempts')).to.equal(true);
        const [warning, ...more] = await warnings(email);
        expect(more).to.have.length(0);
        expect(warning.subject).to.equal('Someone has your console password');
        expect(warning.text_body).to.contain(email).and.contain('3 wrong codes');

        // The wait grows; the next run of codes is the same episode: no second mail.
        clock.advance(30_000);
        expect((await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()))).code).to.equal(
          'invalid_credentials',
        );
        expect(await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()))).to.include({
          kind: 'rate_limited',
          retryAfterSeconds: 60,
        });
        expect(await warnings(email)).to.have.length(1);
        expect(mailsQueued).to.be.greaterThan(0);

        // The owner's address is not made to wait, and the owner's success frees no allowance.
        expect((await logIn(email, PASSWORD, codeAt(secret), OWNER_ADDRESS)).member.email).to.equal(email);
        expect(await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()))).to.include({
          kind: 'rate_limited',
        });

        // A new episode, once the account's count is forgotten, is told again.
        clock.advance(LIMITS.secondFactorBackoff.memorySeconds * 1000);
        for (let i = 0; i < 3; i += 1) await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()));
        expect(await warnings(email)).to.have.length(2);
      });

      it('refuses a new address during the wait whatever its password, so the refusal tells nothing about it', async () => {
        const { email, secret } = await ownerOf();
        for (let i = 0; i < 3; i += 1) await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()));
        const right = await rejection(logIn(email, PASSWORD, wrongCode(secret), strangerAddress()));
        const wrong = await rejection(logIn(email, 'a wrong password!', wrongCode(secret), strangerAddress()));
        expect(wrong).to.include({ kind: 'rate_limited', retryAfterSeconds: right.retryAfterSeconds });
      });

      it('never starts the wait or the mail for wrong passwords, nor for the owner mistyping codes', async () => {
        const { email, secret } = await ownerOf();
        for (let i = 0; i < 3; i += 1)
          expect((await rejection(logIn(email, PASSWORD, wrongCode(secret), OWNER_ADDRESS))).code).to.equal(
            'invalid_credentials',
          );
        // The owner's failures also count for the account: a new address is checked once, as before.
        expect((await rejection(logIn(email, 'a wrong password!', '000000', strangerAddress()))).code).to.equal(
          'invalid_credentials',
        );
        expect(await warnings(email)).to.have.length(0);
      });

      it('checks at most the free wrong codes of parallel attempts from many addresses', async () => {
        const { email, secret } = await ownerOf();
        const code = wrongCode(secret);
        const answers = await withBusyCores(() =>
          Promise.all(
            Array.from({ length: 12 }, (_, i) => rejection(logIn(email, PASSWORD, code, `192.0.2.${100 + i}`))),
          ),
        );
        expect(answers.every((answer) => ['invalid_credentials', 'too_many_attempts'].includes(answer.code))).to.equal(
          true,
        );
        // Codes not checked fail like a wrong one, uncounted: the account's count is the codes checked.
        const { secondFactorFailures } = new LoginThrottle(counters, LIMITS, 'staff-').keys(email, OWNER_ADDRESS);
        const checked = (await counters.peek(secondFactorFailures, clock.ms))?.hits ?? 0;
        expect(checked).to.be.within(1, LIMITS.secondFactorBackoff.freeFailures);
        expect(await warnings(email)).to.have.length(checked === LIMITS.secondFactorBackoff.freeFailures ? 1 : 0);
      });
    });
  }
});
