/**
 * Accounts and sessions: the rules of identity, independent of gRPC. Every failure is an
 * AppError: 400 naming the field, 401 for credentials and sessions, 409 for a taken email,
 * 429 with a retry time when a rate limit is reached.
 */
import { randomUUID } from 'node:crypto';
import { AppError, conflict, invalidArgument, unauthenticated } from '@storefront/errors';
import { addressBucket, countAttempt, counterKey, tooManyAttempts, type WindowCounters } from '@storefront/rate-limit';
import { isWellFormedSessionToken } from '@storefront/formats';
import { enqueueMail, type Mail } from '@storefront/outbox';
import type { LoginBackoff, RateLimits } from '../config';
import type { SessionStore } from '../stores/sessions';
import type { ProfileChanges, User, UserStore } from '../stores/users';
import { rejectCommonPassword, type Abandoned, type PasswordHasher } from './passwords';
import {
  checkNewPasswordLength,
  newReferralCode,
  normaliseEmail,
  normaliseName,
  normalisePhone,
  normaliseReferralCode,
  rejectOverlongPassword,
} from './rules';
import { SESSION_LIFETIME_SECONDS, hashSessionToken, newSessionToken } from './session-tokens';

export interface SignUpInput {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  phone?: string;
  referralCode?: string;
  clientAddress: string;
}

export interface ProfileEdit {
  firstName?: string;
  lastName?: string;
  /** An empty string clears the phone number. */
  phone?: string;
}

export interface IssuedSession {
  /** Handed out once; the store keeps only its hash. */
  token: string;
  maxAgeSeconds: number;
}

export interface AccountsOptions {
  users: UserStore;
  sessions: SessionStore;
  counters: WindowCounters;
  hasher: Pick<PasswordHasher, 'hash' | 'verify' | 'needsRehash'>;
  limits: RateLimits;
  now: () => number;
  /** The welcome mail, queued in the transaction that creates the account. */
  welcomeMail: (user: User) => Mail;
  /** Told when mail was committed, so the sender goes now. */
  mailQueued: () => void;
}

// Referral codes have 31^8 ≈ 8.5e11 values; a few retries make a collision practically impossible.
const REFERRAL_CODE_ATTEMPTS = 5;
const invalidSession = () => unauthenticated('The session is missing, has expired or was ended; log in again');
const invalidCredentials = () => unauthenticated('Email or password is incorrect', 'invalid_credentials');
const emailTaken = () => conflict('email_taken', 'An account with this email already exists; log in instead');

interface LoginKeys {
  /** Failures per account, from every address. */
  account: string;
  /** Failures per client address, for every account. */
  address: string;
  /** Failures of one address for one account. */
  pair: string;
  /** The running wait of one address for one account. */
  wait: string;
}

function loginKeys(email: string, bucket: string): LoginKeys {
  const pair = `${email}\n${bucket}`;
  return {
    account: counterKey('login-account', email),
    address: counterKey('login-address', bucket),
    pair: counterKey('login-pair', pair),
    wait: counterKey('login-pair-wait', pair),
  };
}

/** The wait after an address's `failures`-th failure for one account: none for the first few, then doubling to the cap. */
export function loginBackoffMs(backoff: LoginBackoff, failures: number): number {
  if (failures < backoff.freeFailures) return 0;
  const doublings = Math.min(failures - backoff.freeFailures, 30);
  return Math.min(backoff.baseSeconds * 2 ** doublings, backoff.maxSeconds) * 1000;
}

export class Accounts {
  constructor(private readonly options: AccountsOptions) {}

  /** `abandoned` tells whether the caller has gone; then no account is created. */
  async signUp(input: SignUpInput, abandoned?: Abandoned): Promise<{ user: User; session: IssuedSession }> {
    const { users, counters, hasher, limits, now } = this.options;
    const startedAt = now();
    const addressKey = counterKey('signup-address', addressBucket(input.clientAddress));
    await countAttempt(counters, [{ key: addressKey, limit: limits.signupsPerAddress }], startedAt, 'sign-ups from this address');
    const email = normaliseEmail(input.email);
    checkNewPasswordLength(input.password);
    rejectCommonPassword(input.password);
    const firstName = normaliseName(input.firstName, 'firstName');
    const lastName = normaliseName(input.lastName, 'lastName');
    const phone = input.phone === undefined ? undefined : normalisePhone(input.phone);
    const referredBy = input.referralCode === undefined ? undefined : normaliseReferralCode(input.referralCode) || undefined;
    if (referredBy !== undefined && !(await users.referralCodeExists(referredBy))) {
      throw invalidArgument('referralCode does not belong to any customer');
    }
    if (await users.findByEmail(email)) throw emailTaken();

    const passwordHash = await hasher.hash(input.password, abandoned);
    for (let attempt = 0; attempt < REFERRAL_CODE_ATTEMPTS; attempt += 1) {
      const user: User = {
        id: randomUUID(),
        email,
        passwordHash,
        firstName,
        lastName,
        ...(phone ? { phone } : {}),
        referralCode: newReferralCode(),
        ...(referredBy ? { referredBy } : {}),
        createdAt: startedAt,
      };
      const taken = await users.insert(user, (trx) => enqueueMail(trx, this.options.welcomeMail(user), startedAt));
      if (taken === 'email') throw emailTaken();
      if (taken === undefined) {
        this.options.mailQueued();
        return { user, session: await this.openSession(user.id, startedAt) };
      }
    }
    throw new AppError('internal', 'internal_error', 'Could not allocate a unique referral code');
  }

  /**
   * The same 401 for an unknown email and a wrong password, after the same work: an unknown
   * email is verified against a dummy hash. The attempt is counted before the password is
   * checked (see admitLogin), so parallel guesses cannot overtake a limit. A caller that has
   * gone by the time the password is checked gets no session.
   */
  async logIn(rawEmail: string, password: string, clientAddress: string, abandoned?: Abandoned): Promise<{ user: User; session: IssuedSession }> {
    const { users, counters, hasher } = this.options;
    rejectOverlongPassword(password);
    const email = rawEmail.trim().toLowerCase();
    const startedAt = this.options.now();
    const keys = loginKeys(email, addressBucket(clientAddress));
    await this.admitLogin(keys, startedAt);
    const user = await users.findByEmail(email);
    const verified = await hasher.verify(user?.passwordHash, password, abandoned);
    if (!user || !verified) throw invalidCredentials();

    // Only failures count: a success takes its hits back and forgives this address for this
    // account. The account's other failures stay: the owner logging in during an attack must
    // not hand the attackers a fresh allowance.
    await Promise.all([counters.clear(keys.pair), counters.clear(keys.wait), counters.undo(keys.account), counters.undo(keys.address)]);
    if (hasher.needsRehash(user.passwordHash)) await users.updatePasswordHash(user.id, await hasher.hash(password, abandoned));
    return { user, session: await this.openSession(user.id, startedAt) };
  }

  /**
   * Counts one login attempt, or refuses it with 429 and the seconds to wait (decision 0860):
   * - the address is over its failures across all accounts;
   * - the address has failed for this account before and the account is over its failures
   *   (an address that has not failed for the account is never refused for the account's sake,
   *   so the owner logs in while others guess);
   * - the address is waiting out its progressive delay for this account: after
   *   `freeFailures` failures each one starts a wait of `baseSeconds`, doubled per failure up to
   *   `maxSeconds`, before the next attempt from that address for that account is checked.
   * A refused attempt is not checked, so it neither lengthens the address's delay nor adds to
   * the account's failures.
   */
  private async admitLogin(keys: LoginKeys, now: number): Promise<void> {
    const { counters, limits } = this.options;
    const { loginBackoff } = limits;
    const [address, account, pair] = await Promise.all([
      counters.hit(keys.address, limits.failedLoginsPerAddress.windowSeconds * 1000, now),
      counters.hit(keys.account, limits.failedLoginsPerAccount.windowSeconds * 1000, now),
      counters.hit(keys.pair, loginBackoff.memorySeconds * 1000, now),
    ]);
    // pair.hits counts this address's attempts for this account, this one included.
    const hasFailedBefore = pair.hits > 1;
    const refusedUntil: number[] = [];
    if (address.hits > limits.failedLoginsPerAddress.max) refusedUntil.push(address.resetAt);
    if (hasFailedBefore && account.hits > limits.failedLoginsPerAccount.max) refusedUntil.push(account.resetAt);
    if (refusedUntil.length === 0) {
      // Starts the wait that this attempt's failure would earn, unless an earlier wait is running.
      const wait = await counters.hit(keys.wait, loginBackoffMs(loginBackoff, pair.hits), now);
      if (wait.hits === 1) return;
      refusedUntil.push(wait.resetAt);
    }
    // The refused attempt checked no password for the account: it costs only the address's own allowance.
    await Promise.all([counters.undo(keys.pair), counters.undo(keys.account)]);
    throw tooManyAttempts('Too many failed login attempts', (Math.max(...refusedUntil) - now) / 1000);
  }

  async logOut(token: string): Promise<void> {
    const { sessions, now } = this.options;
    if (!isWellFormedSessionToken(token)) throw invalidSession();
    const tokenHash = hashSessionToken(token);
    if (!(await sessions.find(tokenHash, now()))) throw invalidSession();
    await sessions.delete(tokenHash);
  }

  /** The account a session token belongs to and when the session expires; 401 when unknown or expired (an expired one is purged). */
  async resolveSession(token: string): Promise<{ user: User; expiresAt: number }> {
    const { sessions, users, now } = this.options;
    if (!isWellFormedSessionToken(token)) throw invalidSession();
    const tokenHash = hashSessionToken(token);
    const session = await sessions.find(tokenHash, now());
    if (!session) throw invalidSession();
    const user = await users.findById(session.userId);
    // A password reset ends every session opened up to its millisecond, in whichever store they live.
    if (!user || session.createdAt <= (user.sessionsValidFrom ?? -1)) {
      await sessions.delete(tokenHash);
      throw invalidSession();
    }
    return { user, expiresAt: session.expiresAt };
  }

  async profile(userId: string): Promise<User> {
    const user = await this.options.users.findById(userId);
    if (!user) throw invalidSession();
    return user;
  }

  /** Only the editable fields exist here; email, id and referral code cannot be changed. */
  async updateProfile(userId: string, edit: ProfileEdit): Promise<User> {
    const changes: ProfileChanges = {};
    if (edit.firstName !== undefined) changes.firstName = normaliseName(edit.firstName, 'firstName');
    if (edit.lastName !== undefined) changes.lastName = normaliseName(edit.lastName, 'lastName');
    if (edit.phone !== undefined) changes.phone = normalisePhone(edit.phone) ?? null;
    await this.profile(userId);
    await this.options.users.updateProfile(userId, changes);
    return this.profile(userId);
  }

  /** Sweeps what expired in the SQL store; Redis expires its keys itself. */
  async purgeExpired(): Promise<void> {
    const now = this.options.now();
    await this.options.sessions.purgeExpired(now);
    await this.options.counters.purgeExpired(now);
  }

  private async openSession(userId: string, now: number): Promise<IssuedSession> {
    const token = newSessionToken();
    await this.options.sessions.create(hashSessionToken(token), {
      userId,
      createdAt: now,
      expiresAt: now + SESSION_LIFETIME_SECONDS * 1000,
    });
    return { token, maxAgeSeconds: SESSION_LIFETIME_SECONDS };
  }
}
