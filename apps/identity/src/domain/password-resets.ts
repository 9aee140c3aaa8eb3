/**
 * Password reset by mail (decision 0952). Asking answers the same whether or not the email has an
 * account, after the same work: the limits are counted, then the answer leaves and the account is
 * looked up afterwards, so neither the answer nor its timing tells. Requests count per address,
 * per address and email, and per email with a higher ceiling that an address which logged in to
 * the account lately is never refused by, so strangers cannot block the owner (decision 1121).
 * A token is 32 random bytes, stored as its SHA-256, used once, valid an hour; using it sets a
 * password by the sign-up policy, ends every session of the account and queues a notice.
 */
import { createHash, randomBytes } from 'node:crypto';
import { invalidArgument } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import { addressBucket, countAttempt, counterKey, type WindowCounters, type WindowLimit } from '@storefront/rate-limit';
import type { PasswordResetStore } from '../stores/password-resets';
import type { UserStore } from '../stores/users';
import { passwordChangedMail, passwordResetMail } from './account-mails';
import { recentSignInKey } from './login-throttle';
import { rejectCommonPassword, type PasswordHasher } from './passwords';
import { checkNewPasswordLength, normaliseEmail } from './rules';

export const RESET_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export interface ResetLimits {
  /** Requests per client address, whatever the email. */
  requestsPerAddress: WindowLimit;
  /** Requests per client address for one email: what one stranger can send one inbox. */
  requestsPerAddressAndEmail: WindowLimit;
  /**
   * Requests per email from addresses that have not logged in to it lately: how many reset mails
   * strangers together can send one inbox.
   */
  requestsPerAccount: WindowLimit;
  /** Uses of reset links per client address. */
  confirmsPerAddress: WindowLimit;
}

export interface PasswordResetsOptions {
  users: UserStore;
  resets: PasswordResetStore;
  counters: WindowCounters;
  hasher: Pick<PasswordHasher, 'hash'>;
  limits: ResetLimits;
  publicBaseUrl: string;
  logger: Logger;
  now: () => number;
  /** Told when mail was committed, so the sender goes now rather than at its next look. */
  mailQueued: () => void;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const invalidResetToken = () =>
  invalidArgument(
    'The reset link is invalid, was used already or has expired; ask for a new one',
    'invalid_reset_token',
  );
// A token is 32 bytes in base64url; anything else is refused without a look-up.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class PasswordResets {
  private readonly issuing = new Set<Promise<void>>();

  constructor(private readonly options: PasswordResetsOptions) {}

  async request(rawEmail: string, clientAddress: string): Promise<void> {
    const { counters, limits, now } = this.options;
    const email = normaliseEmail(rawEmail);
    const at = now();
    const address = addressBucket(clientAddress);
    const what = 'password reset requests';
    await countAttempt(
      counters,
      [
        { key: counterKey('reset-address', address), limit: limits.requestsPerAddress },
        { key: counterKey('reset-address-email', `${email}\n${address}`), limit: limits.requestsPerAddressAndEmail },
      ],
      at,
      what,
    );
    // Only requests the stranger's own limits let through use up the email's ceiling. The read is
    // made for every email whether or not it has an account, so the timing tells nothing.
    const fromOwner = (await counters.peek(recentSignInKey(email, clientAddress), at)) !== undefined;
    if (!fromOwner)
      await countAttempt(
        counters,
        [{ key: counterKey('reset-account', email), limit: limits.requestsPerAccount }],
        at,
        what,
      );
    const issuing = this.issue(email)
      .catch((error: unknown) =>
        this.options.logger.error({ err: error }, 'recording a password reset failed; the customer may ask again'),
      )
      .finally(() => this.issuing.delete(issuing));
    this.issuing.add(issuing);
  }

  /** Sets the new password; answers the account whose sessions ended. */
  async confirm(token: string, password: string, clientAddress: string): Promise<string> {
    const { users, resets, counters, hasher, limits, publicBaseUrl, now } = this.options;
    await countAttempt(
      counters,
      [{ key: counterKey('reset-confirm-address', addressBucket(clientAddress)), limit: limits.confirmsPerAddress }],
      now(),
      'password reset attempts',
    );
    checkNewPasswordLength(password);
    rejectCommonPassword(password);
    if (!TOKEN_PATTERN.test(token)) throw invalidResetToken();
    const tokenHash = hashToken(token);
    const reset = await resets.findUsable(tokenHash, now());
    const user = reset && (await users.findById(reset.userId));
    if (!user) throw invalidResetToken();
    const passwordHash = await hasher.hash(password);
    const changedAt = now();
    if (
      !(await resets.complete(
        tokenHash,
        user.id,
        passwordHash,
        changedAt,
        passwordChangedMail(user, changedAt, publicBaseUrl, 'reset'),
      ))
    )
      throw invalidResetToken();
    this.options.mailQueued();
    return user.id;
  }

  /** Waits for requests still being recorded (a stopping process, tests). */
  async settled(): Promise<void> {
    while (this.issuing.size > 0) await Promise.all(this.issuing);
  }

  private async issue(email: string): Promise<void> {
    const { users, resets, publicBaseUrl, now } = this.options;
    const user = await users.findByEmail(email);
    if (!user) return;
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    const issuedAt = now();
    const mail = passwordResetMail(
      user,
      token,
      tokenHash.slice(0, 32),
      publicBaseUrl,
      RESET_TOKEN_LIFETIME_MS / 60_000,
    );
    await resets.record(user.id, tokenHash, issuedAt, issuedAt + RESET_TOKEN_LIFETIME_MS, mail);
    this.options.mailQueued();
  }
}
