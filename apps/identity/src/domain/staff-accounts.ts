/**
 * The console's staff accounts once added (see StaffRoster): the one-time set-up link sets a
 * password and a TOTP second factor and hands out recovery codes; a login takes all three
 * (password, then a current code or an unused recovery code). Staff sessions idle out after 12
 * hours and end at once when the member is disabled. Logins and logouts go to the audit log.
 * Wrong codes after the right password slow the account down and warn the member by mail.
 * Failures are AppErrors: 400 naming the field, 401 for credentials and sessions, 404 for a
 * set-up link that is unknown, used or expired, 429 like customer logins.
 */
import { createHash } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { invalidArgument, notFound, unauthenticated } from '@storefront/errors';
import { isWellFormedSessionToken, randomCode } from '@storefront/formats';
import type { WindowCounters } from '@storefront/rate-limit';
import type { RateLimits } from './login-throttle';
import type { SessionStore } from '../stores/sessions';
import type { StaffMember, StaffStore } from '../stores/staff';
import { LoginThrottle, type SecondFactorAlarm } from './login-throttle';
import { secondFactorGuessingMail } from './staff-mails';
import { rejectCommonPassword, type Abandoned, type PasswordHasher } from './passwords';
import { checkNewPasswordLength, rejectOverlongPassword } from './rules';
import { hashSessionToken, newSessionToken } from './session-tokens';
import type { IssuedSession } from './accounts';

export const STAFF_SESSION_IDLE_SECONDS = 12 * 60 * 60;
/** Stricter than a customer's: a staff password guards every customer's orders. */
export const STAFF_PASSWORD_MIN_LENGTH = 12;
export const RECOVERY_CODE_COUNT = 10;
/** Ten characters of a 31-letter alphabet: about 50 bits each, shown as two groups of five. */
const RECOVERY_CODE_LENGTH = 10;
const TOTP_PERIOD_SECONDS = 30;
/** One step either side, for a phone clock a little off. */
const TOTP_TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;
/** A session is written back at most this often, not at every request. */
const RENEW_AFTER_MS = 60 * 1000;
const TOTP_ISSUER = 'Storefront console';

export interface StaffAccountsOptions {
  staff: StaffStore;
  sessions: SessionStore;
  counters: WindowCounters;
  hasher: Pick<PasswordHasher, 'hash' | 'verify' | 'needsRehash'>;
  limits: RateLimits;
  now: () => number;
  /** Told when mail was committed, so the sender goes now. */
  mailQueued: () => void;
}

export interface StaffLogin {
  email: string;
  password: string;
  /** A six-digit code from the authenticator, or a recovery code. */
  code: string;
  clientAddress: string;
}

export interface SetupOffer {
  member: Pick<StaffMember, 'id' | 'email' | 'role'>;
  /** Base32, for typing into an authenticator. */
  totpSecret: string;
  otpauthUri: string;
}

const invalidCredentials = () => unauthenticated('Email, password or code is incorrect', 'invalid_credentials');
const invalidSession = () => unauthenticated('The staff session is missing, has expired or was ended; log in again');
const setupLinkInvalid = () =>
  notFound('This set-up link is unknown, already used or expired; ask an owner for a new one', 'setup_link_invalid');
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Recovery codes are compared without spaces, dashes or case, as people type them. */
const normaliseRecoveryCode = (code: string) => code.replace(/[\s-]/g, '').toUpperCase();

export class StaffAccounts {
  private readonly throttle: LoginThrottle;

  constructor(private readonly options: StaffAccountsOptions) {
    this.throttle = new LoginThrottle(options.counters, options.limits, 'staff-');
  }

  /** What the set-up page shows: the secret to enrol, the same one until it is confirmed. */
  async setupOffer(setupToken: string): Promise<SetupOffer> {
    const member = await this.memberOfSetupLink(setupToken);
    let secret = member.setupTotpSecret;
    if (!secret) {
      secret = generateSecret();
      await this.options.staff.offerTotpSecret(member.id, secret);
    }
    return {
      member: { id: member.id, email: member.email, role: member.role },
      totpSecret: secret,
      otpauthUri: generateURI({ issuer: TOTP_ISSUER, label: member.email, secret }),
    };
  }

  /**
   * Sets the password and confirms the offered TOTP secret with a current code, which spends the
   * link; returns the recovery codes, shown this once (only their hashes are kept).
   */
  async completeSetup(
    setupToken: string,
    password: string,
    code: string,
    abandoned?: Abandoned,
  ): Promise<{ member: StaffMember; recoveryCodes: string[] }> {
    const { staff, hasher } = this.options;
    const member = await this.memberOfSetupLink(setupToken);
    checkNewPasswordLength(password);
    if ([...password].length < STAFF_PASSWORD_MIN_LENGTH)
      throw invalidArgument(`password must be at least ${STAFF_PASSWORD_MIN_LENGTH} characters`);
    rejectCommonPassword(password);
    const secret = member.setupTotpSecret;
    if (!secret) throw invalidArgument('open the set-up page first: it shows the secret to enrol', 'totp_not_offered');
    const step = this.totpStep(secret, code);
    if (step === undefined)
      throw invalidArgument(
        'code is not the current code of the authenticator; check its clock and the secret entered',
        'invalid_totp',
      );
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const raw = randomCode(RECOVERY_CODE_LENGTH);
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
    const passwordHash = await hasher.hash(password, abandoned);
    const completed = await staff.completeSetup(
      member.id,
      sha256(setupToken),
      { passwordHash, totpSecret: secret, totpStep: step },
      recoveryCodes.map((recovery) => sha256(normaliseRecoveryCode(recovery))),
    );
    if (!completed) throw setupLinkInvalid();
    return { member, recoveryCodes };
  }

  /**
   * The same 401 whatever was wrong (email, password, code, a disabled or unfinished account),
   * after the same password work; counted like customer logins but on counters of their own.
   */
  async logIn(login: StaffLogin, abandoned?: Abandoned): Promise<{ member: StaffMember; session: IssuedSession }> {
    const { staff, hasher, now } = this.options;
    rejectOverlongPassword(login.password);
    const email = login.email.trim().toLowerCase();
    const startedAt = now();
    const keys = this.throttle.keys(email, login.clientAddress);
    const admission = await this.throttle.admit(keys, startedAt);
    const member = await staff.findByEmail(email);
    const usable = member && !member.disabledAt && member.passwordHash && member.totpSecret ? member : undefined;
    const passwordMatches = await hasher.verify(usable?.passwordHash, login.password, abandoned);
    const secondFactor =
      usable && passwordMatches
        ? await this.throttle.checkSecondFactor(keys, admission, startedAt, () =>
            this.spendSecondFactor(usable, login.code),
          )
        : { passed: false };
    if (!usable || !secondFactor.passed) {
      if (usable && secondFactor.alarm) await this.warnOfGuessing(usable, secondFactor.alarm, startedAt);
      if (member) await this.audit(member, 'login_failed', login.clientAddress);
      throw invalidCredentials();
    }
    await this.throttle.succeeded(keys, startedAt);
    if (hasher.needsRehash(usable.passwordHash!))
      await staff.updatePasswordHash(usable.id, await hasher.hash(login.password, abandoned));
    await this.audit(usable, 'login', login.clientAddress);
    return { member: usable, session: await this.openSession(usable.id, startedAt) };
  }

  /**
   * The member a session belongs to; 401 when unknown, idle too long, or the member is disabled. Each use extends it.
   */
  async resolveSession(token: string): Promise<{ member: StaffMember; expiresAt: number }> {
    const { sessions, staff, now } = this.options;
    if (!isWellFormedSessionToken(token)) throw invalidSession();
    const tokenHash = hashSessionToken(token);
    const at = now();
    const session = await sessions.find(tokenHash, at);
    if (!session) throw invalidSession();
    const member = await staff.findById(session.userId);
    if (!member || member.disabledAt) {
      await sessions.delete(tokenHash);
      throw invalidSession();
    }
    let { expiresAt } = session;
    if (at + STAFF_SESSION_IDLE_SECONDS * 1000 - expiresAt >= RENEW_AFTER_MS) {
      expiresAt = at + STAFF_SESSION_IDLE_SECONDS * 1000;
      await sessions.renew(tokenHash, { ...session, expiresAt }, at);
    }
    return { member, expiresAt };
  }

  async logOut(token: string, clientAddress: string): Promise<void> {
    const { member } = await this.resolveSession(token);
    await this.options.sessions.delete(hashSessionToken(token));
    await this.audit(member, 'logout', clientAddress);
  }

  /** Sweeps expired staff sessions from the SQL store; Redis expires its keys itself. */
  async purgeExpired(): Promise<void> {
    await this.options.sessions.purgeExpired(this.options.now());
  }

  private async memberOfSetupLink(setupToken: string): Promise<StaffMember> {
    if (!isWellFormedSessionToken(setupToken)) throw setupLinkInvalid();
    const member = await this.options.staff.findBySetupToken(sha256(setupToken));
    if (!member || member.disabledAt || (member.setupExpiresAt ?? 0) <= this.options.now()) throw setupLinkInvalid();
    return member;
  }

  /** The TOTP time step `code` belongs to, within the tolerance, or undefined. */
  private totpStep(secret: string, code: string): number | undefined {
    if (!/^\d{6}$/.test(code.trim())) return undefined;
    const epoch = Math.floor(this.options.now() / 1000);
    const result = verifySync({
      secret,
      token: code.trim(),
      epoch,
      period: TOTP_PERIOD_SECONDS,
      epochTolerance: TOTP_TOLERANCE_SECONDS,
    });
    return result.valid ? Math.floor(epoch / TOTP_PERIOD_SECONDS) + result.delta : undefined;
  }

  /** A current TOTP code not used before, or one of the member's recovery codes (spent by this). */
  private async spendSecondFactor(member: StaffMember, code: string): Promise<boolean> {
    const step = this.totpStep(member.totpSecret!, code);
    if (step !== undefined) return this.options.staff.spendTotpStep(member.id, step);
    const recovery = normaliseRecoveryCode(code);
    if (recovery.length !== RECOVERY_CODE_LENGTH) return false;
    return this.options.staff.spendRecoveryCode(member.id, sha256(recovery));
  }

  /** Mails the member once per episode (the outbox drops a second mail with the episode's key). */
  private async warnOfGuessing(member: StaffMember, alarm: SecondFactorAlarm, at: number): Promise<void> {
    await this.options.staff.queueMail(secondFactorGuessingMail(member, alarm.episode, alarm.wrongCodes, at), at);
    this.options.mailQueued();
  }

  private async openSession(staffId: string, now: number): Promise<IssuedSession> {
    const token = newSessionToken();
    await this.options.sessions.create(hashSessionToken(token), {
      userId: staffId,
      createdAt: now,
      expiresAt: now + STAFF_SESSION_IDLE_SECONDS * 1000,
    });
    return { token, maxAgeSeconds: STAFF_SESSION_IDLE_SECONDS };
  }

  private audit(member: StaffMember, action: string, clientAddress: string): Promise<void> {
    return this.options.staff.appendAudit(member, action, clientAddress, this.options.now());
  }
}
