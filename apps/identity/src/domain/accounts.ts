/**
 * Accounts and sessions: the rules of identity, independent of gRPC. Every failure is an
 * AppError: 400 naming the field, 401 for credentials and sessions, 409 for a taken email,
 * 429 with a retry time when a rate limit is reached.
 */
import { randomUUID } from 'node:crypto';
import { AppError, invalidArgument, unauthenticated } from '@storefront/errors';
import { addressBucket, countAttempt, counterKey, type WindowCounters } from '@storefront/rate-limit';
import { isWellFormedSessionToken } from '@storefront/formats';
import type { RateLimits } from './login-throttle';
import { LoginThrottle } from './login-throttle';
import type { SessionStore } from '../stores/sessions';
import type { ProfileChanges, User, UserStore } from '../stores/users';
import { emailTaken, type AccountCredentials } from './account-credentials';
import type { MarketingConsents } from './marketing-consent';
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
  /** The unticked-by-default marketing box: ticked, consent is recorded with the account. */
  marketingConsent?: boolean;
}

export interface ProfileEdit {
  firstName?: string;
  lastName?: string;
  /** An empty string clears the phone number. */
  phone?: string;
}

/** What a customer and the console see of an account: every field of the user but its credentials. */
export type CustomerProfile = Omit<User, 'passwordHash' | 'sessionsValidFrom'>;

/** The profile fields are listed here once, so a new one reaches the facade without editing its binding. */
export function profileOf(user: User): CustomerProfile {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    phone: user.phone,
    referralCode: user.referralCode,
    referredBy: user.referredBy,
    createdAt: user.createdAt,
    emailVerifiedAt: user.emailVerifiedAt,
    pendingEmail: user.pendingEmail,
  };
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
  /** Sends the verification link, in the transaction that creates the account, and changes credentials. */
  credentials: AccountCredentials;
  /** Told when mail was committed, so the sender goes now. */
  mailQueued: () => void;
  consents: MarketingConsents;
}

// Referral codes have 31^8 ≈ 8.5e11 values; a few retries make a collision practically impossible.
const REFERRAL_CODE_ATTEMPTS = 5;
const invalidSession = () => unauthenticated('The session is missing, has expired or was ended; log in again');
const invalidCredentials = () => unauthenticated('Email or password is incorrect', 'invalid_credentials');

export class Accounts {
  private readonly throttle: LoginThrottle;

  constructor(private readonly options: AccountsOptions) {
    this.throttle = new LoginThrottle(options.counters, options.limits);
  }

  /** `abandoned` tells whether the caller has gone; then no account is created. */
  async signUp(
    input: SignUpInput,
    abandoned?: Abandoned,
  ): Promise<{ user: User; session: IssuedSession; referrer?: Pick<User, 'id' | 'email'> }> {
    const { users, counters, hasher, limits, now } = this.options;
    const startedAt = now();
    const addressKey = counterKey('signup-address', addressBucket(input.clientAddress));
    await countAttempt(
      counters,
      [{ key: addressKey, limit: limits.signupsPerAddress }],
      startedAt,
      'sign-ups from this address',
    );
    const email = normaliseEmail(input.email);
    checkNewPasswordLength(input.password);
    rejectCommonPassword(input.password);
    const firstName = normaliseName(input.firstName, 'firstName');
    const lastName = normaliseName(input.lastName, 'lastName');
    const phone = input.phone === undefined ? undefined : normalisePhone(input.phone);
    const referredBy =
      input.referralCode === undefined ? undefined : normaliseReferralCode(input.referralCode) || undefined;
    const referrer = referredBy === undefined ? undefined : await users.findByReferralCode(referredBy);
    if (referredBy !== undefined && !referrer) throw invalidArgument('referralCode does not belong to any customer');
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
      // The address is not yet verified: it is sent the link and nothing else (docs/decisions/1131).
      const taken = await users.insert(user, async (trx) => {
        await this.options.credentials.sendLink(user, email, 'sign-up', startedAt, trx);
        if (input.marketingConsent) await this.options.consents.record(user.id, true, 'signup', trx);
      });
      if (taken === 'email') throw emailTaken();
      if (taken === undefined) {
        this.options.mailQueued();
        await this.throttle.rememberOwner(this.throttle.keys(email, input.clientAddress), startedAt);
        return { user, session: await this.openSession(user.id, startedAt), referrer };
      }
    }
    throw new AppError('internal', 'internal_error', 'Could not allocate a unique referral code');
  }

  /**
   * The same 401 for an unknown email and a wrong password, after the same work: an unknown
   * email is verified against a dummy hash. The attempt is counted before the password is
   * checked (see LoginThrottle.admit), so parallel guesses cannot overtake a limit. A caller that has
   * gone by the time the password is checked gets no session.
   */
  async logIn(
    rawEmail: string,
    password: string,
    clientAddress: string,
    abandoned?: Abandoned,
  ): Promise<{ user: User; session: IssuedSession }> {
    const { users, hasher } = this.options;
    rejectOverlongPassword(password);
    const email = rawEmail.trim().toLowerCase();
    const startedAt = this.options.now();
    const keys = this.throttle.keys(email, clientAddress);
    await this.throttle.admit(keys, startedAt);
    const user = await users.findByEmail(email);
    const verified = await hasher.verify(user?.passwordHash, password, abandoned);
    if (!user || !verified) throw invalidCredentials();

    await this.throttle.succeeded(keys, startedAt);
    if (hasher.needsRehash(user.passwordHash))
      await users.updatePasswordHash(user.id, await hasher.hash(password, abandoned));
    return { user, session: await this.openSession(user.id, startedAt) };
  }

  async logOut(token: string): Promise<void> {
    const { sessions, now } = this.options;
    if (!isWellFormedSessionToken(token)) throw invalidSession();
    const tokenHash = hashSessionToken(token);
    if (!(await sessions.find(tokenHash, now()))) throw invalidSession();
    await sessions.delete(tokenHash);
  }

  /**
   * The account a session token belongs to and when the session expires; 401 when unknown or expired (an expired one is
   * purged).
   */
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

  /**
   * The signed-in customer sets a new password with the current one: every session of the account ends, and the
   * caller gets a new one in place of theirs (docs/decisions/1132).
   */
  async changePassword(
    userId: string,
    currentPassword: string,
    newPassword: string,
    clientAddress: string,
    abandoned?: Abandoned,
  ): Promise<IssuedSession> {
    const changedAt = await this.options.credentials.changePassword(
      userId,
      currentPassword,
      newPassword,
      clientAddress,
      abandoned,
    );
    // Sessions opened up to changedAt have ended (resolveSession); the caller's new one opens the millisecond after.
    return this.openSession(userId, changedAt + 1);
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
