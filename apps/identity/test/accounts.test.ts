/** The Accounts domain directly, where a test needs to look inside: hashing work, sign-up limits, SQL counters. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { Knex } from '@storefront/db';
import { AccountCredentials } from '../src/domain/account-credentials';
import { Accounts } from '../src/domain/accounts';
import { MarketingConsents } from '../src/domain/marketing-consent';
import { PasswordHasher, type Abandoned } from '../src/domain/passwords';
import { EmailVerificationStore } from '../src/stores/email-verifications';
import { UserStore } from '../src/stores/users';
import { SqlSessionStore } from '../src/stores/sessions';
import { SqlWindowCounters } from '@storefront/rate-limit';
import { ManualClock } from '@storefront/testing';
import { openStores, type StoreHarness } from './support';

const LIMITS = {
  failedLoginsPerAccount: { max: 100, windowSeconds: 900 },
  failedLoginsPerAddress: { max: 100, windowSeconds: 900 },
  loginBackoff: { freeFailures: 5, baseSeconds: 30, maxSeconds: 900, memorySeconds: 86_400 },
  recentSignInSeconds: 30 * 86_400,
  secondFactorBackoff: { freeFailures: 3, baseSeconds: 30, maxSeconds: 900, memorySeconds: 86_400 },
  signupsPerAddress: { max: 2, windowSeconds: 3600 },
};

/** Records which hashes were verified, to show an unknown email costs a verification too. */
class RecordingHasher {
  readonly verified: Array<string | undefined> = [];
  constructor(private readonly inner: PasswordHasher) {}
  hash(password: string, abandoned?: Abandoned) {
    return this.inner.hash(password, abandoned);
  }
  async verify(hash: string | undefined, password: string, abandoned?: Abandoned) {
    this.verified.push(hash);
    return this.inner.verify(hash, password, abandoned);
  }
  needsRehash(hash: string) {
    return this.inner.needsRehash(hash);
  }
}

/** The domain alone: its mails are queued and never sent (the outbox and its sender are tested on their own). */
function withoutSending(db: Knex, hasher: Pick<PasswordHasher, 'hash' | 'verify'>, now: () => number) {
  const credentials = new AccountCredentials({
    users: new UserStore(db),
    verifications: new EmailVerificationStore(db),
    counters: new SqlWindowCounters(db),
    hasher,
    limits: LIMITS,
    publicBaseUrl: 'http://shop.test',
    now,
    mailQueued: () => undefined,
  });
  return { credentials, mailQueued: () => undefined };
}

describe('identity accounts domain', () => {
  let harness: StoreHarness;
  let hasher: RecordingHasher;
  let accounts: Accounts;
  const clock = new ManualClock();
  before(async () => {
    harness = await openStores();
    hasher = new RecordingHasher(
      await PasswordHasher.create({ memoryKib: 1024, timeCost: 1, parallelism: 1, maxConcurrent: 2, maxWaiting: 50 }),
    );
    accounts = new Accounts({
      users: new UserStore(harness.db),
      sessions: new SqlSessionStore(harness.db),
      consents: new MarketingConsents(harness.db, clock.now, 'http://shop.test'),
      counters: new SqlWindowCounters(harness.db),
      hasher,
      limits: LIMITS,
      now: clock.now,
      ...withoutSending(harness.db, hasher, clock.now),
    });
  });
  after(async () => harness?.close());

  const newAccount = (email: string, clientAddress: string) =>
    accounts.signUp({ email, password: 'plum-tractor-42', firstName: 'Ada', lastName: 'Lovelace', clientAddress });

  it('verifies a password hash for an unknown email as for a known one', async () => {
    await newAccount('known@example.test', '192.0.2.50');
    hasher.verified.length = 0;
    await accounts.logIn('known@example.test', 'wrong-password', '192.0.2.51').catch(() => undefined);
    await accounts.logIn('unknown@example.test', 'wrong-password', '192.0.2.51').catch(() => undefined);
    expect(hasher.verified).to.have.length(2);
    expect(hasher.verified[0]).to.match(/^\$argon2id\$/);
    // No user: the hasher falls back to its dummy hash, doing the same work.
    expect(hasher.verified[1]).to.equal(undefined);
  });

  it('never hashes a password over 128 characters', async () => {
    hasher.verified.length = 0;
    await accounts.logIn('known@example.test', 'x'.repeat(129), '192.0.2.52').catch(() => undefined);
    await accounts
      .signUp({
        email: 'long@example.test',
        password: 'x'.repeat(10_000),
        firstName: 'A',
        lastName: 'B',
        clientAddress: '192.0.2.52',
      })
      .catch(() => undefined);
    expect(hasher.verified).to.have.length(0);
    expect(await harness.db('users').where({ email: 'long@example.test' }).first()).to.equal(undefined);
  });

  it('limits sign-ups per client address and says when to retry', async () => {
    await newAccount('first@example.test', '192.0.2.60');
    await newAccount('second@example.test', '192.0.2.60');
    const error = await newAccount('third@example.test', '192.0.2.60').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(AppError).and.include({ kind: 'rate_limited', retryAfterSeconds: 3600 });
    await newAccount('elsewhere@example.test', '192.0.2.61');
    clock.advance(3600 * 1000);
    await newAccount('third@example.test', '192.0.2.60');
  });

  it('replaces a hash made with weaker parameters at the next login', async () => {
    const weak = await PasswordHasher.create({
      memoryKib: 1024,
      timeCost: 1,
      parallelism: 1,
      maxConcurrent: 2,
      maxWaiting: 50,
    });
    const stronger = await PasswordHasher.create({
      memoryKib: 2048,
      timeCost: 2,
      parallelism: 1,
      maxConcurrent: 2,
      maxWaiting: 50,
    });
    const { user } = await newAccount('upgrade@example.test', '192.0.2.70');
    expect(weak.needsRehash(user.passwordHash)).to.equal(false);
    const upgraded = new Accounts({
      users: new UserStore(harness.db),
      sessions: new SqlSessionStore(harness.db),
      consents: new MarketingConsents(harness.db, clock.now, 'http://shop.test'),
      counters: new SqlWindowCounters(harness.db),
      hasher: stronger,
      limits: LIMITS,
      now: clock.now,
      ...withoutSending(harness.db, stronger, clock.now),
    });
    await upgraded.logIn('upgrade@example.test', 'plum-tractor-42', '192.0.2.70');
    const stored = await harness.db('users').where({ id: user.id }).first();
    expect(stored.password_hash).to.not.equal(user.passwordHash);
    expect(stronger.needsRehash(stored.password_hash)).to.equal(false);
    await upgraded.logIn('upgrade@example.test', 'plum-tractor-42', '192.0.2.70');
  });

  it('keeps the login delay in the SQL counters, as replicas on MySQL without Redis share it', async () => {
    await newAccount('delayed@example.test', '192.0.2.80');
    const failure = (address: string) =>
      accounts.logIn('delayed@example.test', 'wrong-password', address).then(
        () => undefined,
        (e: unknown) => e as AppError,
      );
    for (let i = 0; i < 5; i += 1) expect(await failure('192.0.2.81')).to.include({ code: 'invalid_credentials' });
    expect(await failure('192.0.2.81')).to.include({ kind: 'rate_limited', retryAfterSeconds: 30 });
    expect((await accounts.logIn('delayed@example.test', 'plum-tractor-42', '192.0.2.82')).user.email).to.equal(
      'delayed@example.test',
    );
    clock.advance(30 * 1000);
    expect(await failure('192.0.2.81')).to.include({ code: 'invalid_credentials' });
    expect(await failure('192.0.2.81')).to.include({ kind: 'rate_limited', retryAfterSeconds: 60 });
  });
});
