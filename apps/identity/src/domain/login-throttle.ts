/**
 * The limits on password logins (decision 0860), shared by customer and staff logins: failures
 * per client address, per account, and a progressive delay per address and account. Each kind
 * of login counts under its own key prefix, so a guessing run at the shop cannot lock the
 * console and the other way round. An address that logged in to an account is remembered, so
 * the owner's typo during an attack does not lock the owner out (decision 1120); a second factor
 * guessed with the right password slows the whole account down (decision 1122).
 */
import {
  addressBucket,
  counterKey,
  tooManyAttempts,
  type WindowCounters,
  type WindowLimit,
} from '@storefront/rate-limit';

/** The login and sign-up limits of one identity service. */
export interface RateLimits {
  /** Failures per account; past it, only addresses that have not failed for the account are checked. */
  failedLoginsPerAccount: WindowLimit;
  failedLoginsPerAddress: WindowLimit;
  loginBackoff: LoginBackoff;
  /** How long an address that logged in to an account counts as its owner's. */
  recentSignInSeconds: number;
  /**
   * The delay of second-factor checks per account, from every address but the owner's: counts
   * the codes tried after the right password. The member is told once `freeFailures` are wrong.
   */
  secondFactorBackoff: LoginBackoff;
  signupsPerAddress: WindowLimit;
}

/**
 * The progressive delay of one client address for one account: after `freeFailures` failures
 * the address waits `baseSeconds`, doubled at every further failure up to `maxSeconds`, before
 * its next attempt for that account is checked. Failures are remembered `memorySeconds` from
 * the first one.
 */
export interface LoginBackoff {
  freeFailures: number;
  baseSeconds: number;
  maxSeconds: number;
  memorySeconds: number;
}

/** The counters of one attempt: what admit() counted and succeeded() forgives. */
export interface LoginKeys {
  /** Failures per account, from every address. */
  account: string;
  /** Failures per client address, for every account. */
  address: string;
  /** Failures of one address for one account. */
  pair: string;
  /** The running wait of one address for one account. */
  wait: string;
  /** Present while this address logged in to the account lately. */
  recentSignIn: string;
  /** Codes tried for the account after its right password, from every address. */
  secondFactorFailures: string;
  /** The running wait of the account's second-factor checks. */
  secondFactorWait: string;
}

/** What admit() learnt about the attempt. */
export interface Admission {
  /** The address logged in to the account within `recentSignInSeconds`. */
  recentSignIn: boolean;
}

/** The outcome of a second-factor check; `alarm` when the member must hear of the wrong codes. */
export interface SecondFactorOutcome {
  passed: boolean;
  alarm?: SecondFactorAlarm;
}

export interface SecondFactorAlarm {
  /** Names the run of wrong codes (when the account's count ends), so the member hears of it once. */
  episode: number;
  /** Wrong codes in the run so far, this one included. */
  wrongCodes: number;
}

const pairOf = (email: string, clientAddress: string) => `${email}\n${addressBucket(clientAddress)}`;

/** The marker LoginThrottle.succeeded leaves for an address that logged in to an account. */
export function recentSignInKey(email: string, clientAddress: string, prefix = ''): string {
  return counterKey(`${prefix}login-recent`, pairOf(email, clientAddress));
}

/**
 * The wait after an address's `failures`-th failure for one account: none for the first few, then doubling to the cap.
 */
export function loginBackoffMs(backoff: LoginBackoff, failures: number): number {
  if (failures < backoff.freeFailures) return 0;
  const doublings = Math.min(failures - backoff.freeFailures, 30);
  return Math.min(backoff.baseSeconds * 2 ** doublings, backoff.maxSeconds) * 1000;
}

export class LoginThrottle {
  /** `prefix` separates the counters of one kind of login from another's ('' keeps the customers' original keys). */
  constructor(
    private readonly counters: WindowCounters,
    private readonly limits: RateLimits,
    private readonly prefix = '',
  ) {}

  keys(email: string, clientAddress: string): LoginKeys {
    const pair = pairOf(email, clientAddress);
    return {
      account: counterKey(`${this.prefix}login-account`, email),
      address: counterKey(`${this.prefix}login-address`, addressBucket(clientAddress)),
      pair: counterKey(`${this.prefix}login-pair`, pair),
      wait: counterKey(`${this.prefix}login-pair-wait`, pair),
      recentSignIn: recentSignInKey(email, clientAddress, this.prefix),
      secondFactorFailures: counterKey(`${this.prefix}second-factor-account`, email),
      secondFactorWait: counterKey(`${this.prefix}second-factor-wait`, email),
    };
  }

  /**
   * Counts one login attempt, or refuses it with 429 and the seconds to wait:
   * - the address is over its failures across all accounts;
   * - the address has failed for this account before and the account is over its failures
   *   (an address that has not failed for the account is never refused for the account's sake,
   *   so the owner logs in while others guess; one that logged in to it lately has
   *   `freeFailures` before that, so the owner's typo does not lock the owner out);
   * - the account's second-factor checks are waiting (decision 1122), unless the address
   *   logged in to it lately; this is decided before the password, so it tells nothing about it;
   * - the address is waiting out its progressive delay for this account: after
   *   `freeFailures` failures each one starts a wait of `baseSeconds`, doubled per failure up to
   *   `maxSeconds`, before the next attempt from that address for that account is checked.
   * A refused attempt is not checked, so it neither lengthens the address's delay nor adds to
   * the account's failures.
   */
  async admit(keys: LoginKeys, now: number): Promise<Admission> {
    const { counters, limits } = this;
    const { loginBackoff } = limits;
    const [address, account, pair, recentSignIn, secondFactorWait] = await Promise.all([
      counters.hit(keys.address, limits.failedLoginsPerAddress.windowSeconds * 1000, now),
      counters.hit(keys.account, limits.failedLoginsPerAccount.windowSeconds * 1000, now),
      counters.hit(keys.pair, loginBackoff.memorySeconds * 1000, now),
      counters.peek(keys.recentSignIn, now),
      counters.peek(keys.secondFactorWait, now),
    ]);
    const admission: Admission = { recentSignIn: recentSignIn !== undefined };
    // pair.hits counts this address's attempts for this account, this one included.
    const failuresBefore = pair.hits - 1;
    const failuresForgiven = admission.recentSignIn ? loginBackoff.freeFailures : 0;
    const refusedUntil: number[] = [];
    if (address.hits > limits.failedLoginsPerAddress.max) refusedUntil.push(address.resetAt);
    if (failuresBefore > failuresForgiven && account.hits > limits.failedLoginsPerAccount.max)
      refusedUntil.push(account.resetAt);
    if (secondFactorWait && !admission.recentSignIn) refusedUntil.push(secondFactorWait.resetAt);
    if (refusedUntil.length === 0) {
      // Starts the wait that this attempt's failure would earn, unless an earlier wait is running.
      const wait = await counters.hit(keys.wait, loginBackoffMs(loginBackoff, pair.hits), now);
      if (wait.hits === 1) return admission;
      refusedUntil.push(wait.resetAt);
    }
    // The refused attempt checked no password for the account: it costs only the address's own allowance.
    await Promise.all([counters.undo(keys.pair), counters.undo(keys.account)]);
    throw tooManyAttempts('Too many failed login attempts', (Math.max(...refusedUntil) - now) / 1000);
  }

  /**
   * Checks a second factor after the right password (`check` spends the code). From an address
   * that logged in to the account lately it is simply checked. From any other, the code counts
   * for the account and starts the wait its failure would earn, before it is checked: of
   * parallel codes from many addresses, those arriving while a wait runs are not checked and
   * fail like a wrong code. Once `freeFailures` codes were wrong, each failure raises the alarm
   * for the episode (the window of the account's count): the member must hear someone has the password.
   */
  async checkSecondFactor(
    keys: LoginKeys,
    admission: Admission,
    now: number,
    check: () => Promise<boolean>,
  ): Promise<SecondFactorOutcome> {
    if (admission.recentSignIn) return { passed: await check() };
    const { counters } = this;
    const backoff = this.limits.secondFactorBackoff;
    const failures = await counters.hit(keys.secondFactorFailures, backoff.memorySeconds * 1000, now);
    const wait = await counters.hit(keys.secondFactorWait, loginBackoffMs(backoff, failures.hits), now);
    if (wait.hits > 1) {
      // Another code started a wait meanwhile: this one is not checked, so it is not counted.
      await counters.undo(keys.secondFactorFailures);
      return { passed: false };
    }
    if (await check()) {
      // The wait this attempt started was only in case it failed.
      await Promise.all([counters.undo(keys.secondFactorFailures), counters.clear(keys.secondFactorWait)]);
      return { passed: true };
    }
    return failures.hits >= backoff.freeFailures
      ? { passed: false, alarm: { episode: failures.resetAt, wrongCodes: failures.hits } }
      : { passed: false };
  }

  /**
   * Only failures count: a success takes its hits back, forgives this address for this account
   * and remembers it as the owner's. The account's other failures stay: the owner logging in
   * during an attack must not hand the attackers a fresh allowance.
   */
  async succeeded(keys: LoginKeys, now: number): Promise<void> {
    const { counters } = this;
    await Promise.all([
      counters.clear(keys.pair),
      counters.clear(keys.wait),
      counters.undo(keys.account),
      counters.undo(keys.address),
    ]);
    await this.rememberOwner(keys, now);
  }

  /** Remembers the address as the account owner's for `recentSignInSeconds` from now: a login, a sign-up. */
  async rememberOwner(keys: Pick<LoginKeys, 'recentSignIn'>, now: number): Promise<void> {
    // Cleared first, so the window runs from this sign-in.
    await this.counters.clear(keys.recentSignIn);
    await this.counters.hit(keys.recentSignIn, this.limits.recentSignInSeconds * 1000, now);
  }
}
