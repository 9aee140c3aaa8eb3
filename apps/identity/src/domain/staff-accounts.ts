/**
 * The console's staff accounts once added (see StaffRoster): the one-time set-up link sets a
 * password and a TOTP second factor and hands out recovery codes; a login takes all three
 * (password, then a current code or an unused recovery code). The link shows the secret only to the
 * first browser that opened it. Staff sessions idle out after 2 hours, end 12 hours after the login
 * whatever their use, and end at once when the member is disabled or their credentials are reset or
 * set up again. Logins (by TOTP or recovery code), refused logins and logouts, and completed
 * set-ups, go to the audit log. Wrong codes after the right password slow the account down and warn
 * the member by mail. Failures are AppErrors: 400 naming the field, 401 for credentials and
 * sessions, 404 for a set-up link that is unknown, used or expired, 409 for a set-up link opened
 * first in another browser, 429 like customer logins.
 */
import { createHash } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { AppError, conflict, invalidArgument, notFound, unauthenticated } from '@storefront/errors';
import { isWellFormedSessionToken, randomCode } from '@storefront/formats';
import type { WindowCounters } from '@storefront/rate-limit';
import type { RateLimits } from './login-throttle';
import type { SessionStore } from '../stores/sessions';
import { selfActor, type StaffMember, type StaffStore } from '../stores/staff';
import { LoginThrottle, type SecondFactorAlarm } from './login-throttle';
import { secondFactorGuessingMail } from './staff-mails';
import { rejectCommonPassword, type Abandoned, type PasswordHasher } from './passwords';
import { checkNewPasswordLength, rejectOverlongPassword } from './rules';
import { hashSessionToken, newSessionToken } from './session-tokens';
import type { IssuedSession } from './accounts';

export const STAFF_SESSION_IDLE_SECONDS = 2 * 60 * 60;
/** From the login, however often the session is used: a stolen session is not good for longer. */
export const STAFF_SESSION_MAX_SECONDS = 12 * 60 * 60;
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
const setupLinkBound = () =>
  conflict(
    'setup_link_bound',
    'This set-up link was opened first in another browser (or a link preview), which alone sees the ' +
      'secret; ask an owner for a new link',
  );
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

  /**
   * What the set-up page shows: the secret to enrol, the same one until it is confirmed, and only to the browser
   * that opened the link first (`browserBinding`, a random value of its own); 409 for any other.
   */
  async setupOffer(setupToken: string, browserBinding: string): Promise<SetupOffer> {
    const member = await this.memberOfBoundSetupLink(setupToken, browserBinding, true);
    const secret = member.setupTotpSecret ?? (await this.options.staff.offerTotpSecret(member.id, generateSecret()))!;
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
    setup: { setupToken: string; browserBinding: string; password: string; code: string; clientAddress: string },
    abandoned?: Abandoned,
  ): Promise<{ member: StaffMember; recoveryCodes: string[] }> {
    const { staff, hasher } = this.options;
    const { setupToken, password, code } = setup;
    const member = await this.memberOfBoundSetupLink(setupToken, setup.browserBinding, false);
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
      {
        actor: selfActor(member, setup.clientAddress),
        record: { action: 'setup_completed', subject: member.email },
        at: this.options.now(),
      },
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
    const member = await staff.findByEmail(email);
    const admission = await this.throttle.admit(keys, startedAt).catch(async (error: unknown) => {
      if (member && error instanceof AppError && error.kind === 'rate_limited')
        await this.audit(member, 'login_rate_limited', login.clientAddress);
      throw error;
    });
    const usable = member && !member.disabledAt && member.passwordHash && member.totpSecret ? member : undefined;
    const passwordMatches = await hasher.verify(usable?.passwordHash, login.password, abandoned);
    let factor: 'totp' | 'recovery_code' | undefined;
    const secondFactor =
      usable && passwordMatches
        ? await this.throttle.checkSecondFactor(keys, admission, startedAt, async () => {
            factor = await this.spendSecondFactor(usable, login.code);
            return factor !== undefined;
          })
        : { passed: false };
    if (!usable || !secondFactor.passed) {
      if (usable && secondFactor.alarm) await this.warnOfGuessing(usable, secondFactor.alarm, startedAt);
      if (member) await this.audit(member, 'login_failed', login.clientAddress);
      throw invalidCredentials();
    }
    await this.throttle.succeeded(keys, startedAt);
    if (hasher.needsRehash(usable.passwordHash!))
      await staff.updatePasswordHash(usable.id, await hasher.hash(login.password, abandoned));
    await this.audit(usable, factor === 'recovery_code' ? 'login_recovery_code' : 'login', login.clientAddress);
    return { member: usable, session: await this.openSession(usable.id, startedAt) };
  }

  /**
   * The member a session belongs to; 401 when unknown, idle too long, older than the absolute lifetime, made before
   * the member's credentials were last reset or set up, or the member is disabled. Each use extends it, up to the
   * absolute lifetime.
   */
  async resolveSession(token: string): Promise<{ member: StaffMember; expiresAt: number }> {
    const { sessions, staff, now } = this.options;
    if (!isWellFormedSessionToken(token)) throw invalidSession();
    const tokenHash = hashSessionToken(token);
    const at = now();
    const session = await sessions.find(tokenHash, at);
    if (!session) throw invalidSession();
    const member = await staff.findById(session.userId);
    const endsAt = session.createdAt + STAFF_SESSION_MAX_SECONDS * 1000;
    if (!member || member.disabledAt || session.createdAt <= (member.sessionsValidFrom ?? -1) || at >= endsAt) {
      await sessions.delete(tokenHash);
      throw invalidSession();
    }
    let { expiresAt } = session;
    const extended = Math.min(at + STAFF_SESSION_IDLE_SECONDS * 1000, endsAt);
    if (extended - expiresAt >= RENEW_AFTER_MS) {
      expiresAt = extended;
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

  /**
   * The member of a live set-up link opened by `browserBinding`'s browser; `bindFirst` binds the link to it when no
   * browser has opened it yet. 404 for a dead link, 409 for another browser's.
   */
  private async memberOfBoundSetupLink(
    setupToken: string,
    browserBinding: string,
    bindFirst: boolean,
  ): Promise<StaffMember> {
    if (!isWellFormedSessionToken(setupToken)) throw setupLinkInvalid();
    const { staff, now } = this.options;
    const member = await staff.findBySetupToken(sha256(setupToken));
    if (!member || member.disabledAt || (member.setupExpiresAt ?? 0) <= now()) throw setupLinkInvalid();
    if (!isWellFormedSessionToken(browserBinding)) throw setupLinkBound();
    const browserHash = sha256(browserBinding);
    const bound = bindFirst
      ? await staff.bindSetupBrowser(member.id, browserHash)
      : member.setupBrowserHash === browserHash;
    if (!bound) throw setupLinkBound();
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

  /**
   * Which second factor `code` is: a current TOTP code not used before,
   * or one of the member's recovery codes (spent by this).
   */
  private async spendSecondFactor(member: StaffMember, code: string): Promise<'totp' | 'recovery_code' | undefined> {
    const { staff } = this.options;
    const step = this.totpStep(member.totpSecret!, code);
    if (step !== undefined) return (await staff.spendTotpStep(member.id, step)) ? 'totp' : undefined;
    const recovery = normaliseRecoveryCode(code);
    if (recovery.length !== RECOVERY_CODE_LENGTH) return undefined;
    return (await staff.spendRecoveryCode(member.id, sha256(recovery))) ? 'recovery_code' : undefined;
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
    // The browser keeps the cookie for the absolute lifetime; identity ends the session sooner when it idles.
    return { token, maxAgeSeconds: STAFF_SESSION_MAX_SECONDS };
  }

  private audit(member: StaffMember, action: string, clientAddress: string): Promise<void> {
    return this.options.staff.appendAudit({
      actor: selfActor(member, clientAddress),
      record: { action, subject: member.email },
      at: this.options.now(),
    });
  }
}
