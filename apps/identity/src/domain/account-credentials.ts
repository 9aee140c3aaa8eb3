/**
 * An account's email and password as its owner proves and changes them (docs/decisions/1131, 1132): verified
 * addresses, and the changes a signed-in customer makes with their current password. A verification link is 32 random
 * bytes, stored as its SHA-256, used once, valid a day; using it makes the address it was sent to the account's,
 * verified. A sign-up's first address is verified that way before anything but the link is mailed to it; a new address
 * counts only once its link is used, and the old address is then told.
 */
import { createHash, randomBytes } from 'node:crypto';
import { conflict, invalidArgument, unauthenticated } from '@storefront/errors';
import { countAttempt, counterKey, type WindowCounters } from '@storefront/rate-limit';
import type { Knex } from '@storefront/db';
import type { Mail } from '@storefront/outbox';
import type { EmailVerificationStore } from '../stores/email-verifications';
import type { User, UserStore } from '../stores/users';
import {
  emailChangedMail,
  passwordChangedMail,
  verificationMail,
  welcomeMail,
  type VerificationPurpose,
} from './account-mails';
import { LoginThrottle, type RateLimits } from './login-throttle';
import { rejectCommonPassword, type Abandoned, type PasswordHasher } from './passwords';
import { checkNewPasswordLength, normaliseEmail, rejectOverlongPassword } from './rules';

export const VERIFICATION_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Links one account may ask for: each is a mail to an address of the customer's choosing. */
export const LINK_REQUESTS_PER_ACCOUNT = { max: 5, windowSeconds: 3600 };

export interface AccountCredentialsOptions {
  users: UserStore;
  verifications: EmailVerificationStore;
  counters: WindowCounters;
  hasher: Pick<PasswordHasher, 'hash' | 'verify'>;
  limits: RateLimits;
  publicBaseUrl: string;
  now: () => number;
  /** Told when mail was committed, so the sender goes now. */
  mailQueued: () => void;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
// A token is 32 bytes in base64url; anything else is refused without a look-up.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const invalidVerificationToken = () =>
  invalidArgument(
    'The verification link is invalid, was used already or has expired; ask for a new one',
    'invalid_verification_token',
  );
const wrongCurrentPassword = () => invalidArgument('currentPassword is incorrect', 'invalid_current_password');
export const emailTaken = () => conflict('email_taken', 'An account with this email already exists; log in instead');

export class AccountCredentials {
  /** The customers' login counters: a wrong current password is a failed login of the account. */
  private readonly throttle: LoginThrottle;

  constructor(private readonly options: AccountCredentialsOptions) {
    this.throttle = new LoginThrottle(options.counters, options.limits);
  }

  /** Records a link to `email` with the mail that carries it, in `trx` (the sign-up's) or a transaction of its own. */
  async sendLink(
    user: Pick<User, 'id' | 'firstName'>,
    email: string,
    purpose: VerificationPurpose,
    now: number,
    trx?: Knex.Transaction,
  ): Promise<void> {
    const { verifications, publicBaseUrl } = this.options;
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    const mail = verificationMail(
      user.firstName,
      email,
      token,
      tokenHash.slice(0, 32),
      purpose,
      publicBaseUrl,
      VERIFICATION_LINK_LIFETIME_MS / 3_600_000,
    );
    await verifications.record(
      { userId: user.id, email, tokenHash, now, expiresAt: now + VERIFICATION_LINK_LIFETIME_MS },
      mail,
      trx,
    );
  }

  /**
   * Uses a link: its address becomes the account's, verified. The first verification of an account queues the
   * welcome; a change queues a notice to the old address when that one was verified.
   */
  async verify(token: string): Promise<{ userId: string; email: string }> {
    const { users, verifications, publicBaseUrl, now } = this.options;
    if (!TOKEN_PATTERN.test(token)) throw invalidVerificationToken();
    const tokenHash = hashToken(token);
    const verifiedAt = now();
    const link = await verifications.findUsable(tokenHash, verifiedAt);
    const user = link && (await users.findById(link.userId));
    if (!link || !user) throw invalidVerificationToken();
    const mails: Mail[] = [];
    if (user.emailVerifiedAt === undefined) mails.push(welcomeMail({ ...user, email: link.email }, publicBaseUrl));
    else if (link.email !== user.email) mails.push(emailChangedMail(user, verifiedAt, publicBaseUrl));
    const outcome = await verifications.complete(tokenHash, link, verifiedAt, mails);
    if (outcome === 'email_taken') throw emailTaken();
    if (outcome === 'unusable') throw invalidVerificationToken();
    if (mails.length > 0) this.options.mailQueued();
    return { userId: user.id, email: link.email };
  }

  /**
   * The customer asks for another address with their current password: a link goes to it, and the account keeps its
   * address until the link is used. An address another account holds is 409 `email_taken`, as at sign-up. An account
   * whose own address is not verified yet may give that address again: a new link goes to it (the first may have
   * expired or been lost). Each account asks for a few links an hour.
   */
  async requestChange(
    userId: string,
    currentPassword: string,
    rawEmail: string,
    clientAddress: string,
    abandoned?: Abandoned,
  ): Promise<User> {
    const { users, now } = this.options;
    const email = normaliseEmail(rawEmail);
    const user = await this.withCurrentPassword(userId, currentPassword, clientAddress, abandoned);
    const resend = email === user.email;
    if (resend && user.emailVerifiedAt !== undefined)
      throw invalidArgument('email is already the verified address of this account');
    if (!resend && (await users.findByEmail(email))) throw emailTaken();
    const askedAt = now();
    await countAttempt(
      this.options.counters,
      [{ key: counterKey('verification-links', user.id), limit: LINK_REQUESTS_PER_ACCOUNT }],
      askedAt,
      'verification links for this account',
    );
    await this.sendLink(user, email, resend ? 'sign-up' : 'email-change', askedAt);
    this.options.mailQueued();
    return (await users.findById(userId))!;
  }

  /**
   * The customer sets a new password with their current one. Every session of the account opened up to now ends; the
   * caller opens its own again. A verified address is told.
   */
  async changePassword(
    userId: string,
    currentPassword: string,
    newPassword: string,
    clientAddress: string,
    abandoned?: Abandoned,
  ): Promise<number> {
    const { users, hasher, publicBaseUrl, now } = this.options;
    checkNewPasswordLength(newPassword);
    rejectCommonPassword(newPassword);
    const user = await this.withCurrentPassword(userId, currentPassword, clientAddress, abandoned);
    const passwordHash = await hasher.hash(newPassword, abandoned);
    const changedAt = now();
    const notice =
      user.emailVerifiedAt === undefined ? undefined : passwordChangedMail(user, changedAt, publicBaseUrl, 'signed-in');
    await users.changePassword(user.id, passwordHash, changedAt, notice);
    if (notice) this.options.mailQueued();
    return changedAt;
  }

  /** The account, once its current password is checked and counted like a login: a wrong one is 400 naming it. */
  async withCurrentPassword(
    userId: string,
    password: string,
    clientAddress: string,
    abandoned?: Abandoned,
  ): Promise<User> {
    const { users, hasher, now } = this.options;
    rejectOverlongPassword(password);
    const user = await users.findById(userId);
    if (!user) throw unauthenticated();
    const keys = this.throttle.keys(user.email, clientAddress);
    const startedAt = now();
    await this.throttle.admit(keys, startedAt);
    if (!(await hasher.verify(user.passwordHash, password, abandoned))) throw wrongCurrentPassword();
    await this.throttle.succeeded(keys, startedAt);
    return user;
  }

  /** Sweeps links that can no longer be used. */
  purgeExpired(): Promise<number> {
    return this.options.verifications.purgeExpired(this.options.now());
  }
}
