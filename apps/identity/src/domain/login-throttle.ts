/**
 * The limits on password logins (decision 0860), shared by customer and staff logins: failures
 * per client address, per account, and a progressive delay per address and account. Each kind
 * of login counts under its own key prefix, so a guessing run at the shop cannot lock the
 * console and the other way round.
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
    const pair = `${email}\n${addressBucket(clientAddress)}`;
    return {
      account: counterKey(`${this.prefix}login-account`, email),
      address: counterKey(`${this.prefix}login-address`, addressBucket(clientAddress)),
      pair: counterKey(`${this.prefix}login-pair`, pair),
      wait: counterKey(`${this.prefix}login-pair-wait`, pair),
    };
  }

  /**
   * Counts one login attempt, or refuses it with 429 and the seconds to wait:
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
  async admit(keys: LoginKeys, now: number): Promise<void> {
    const { counters, limits } = this;
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

  /**
   * Only failures count: a success takes its hits back and forgives this address for this
   * account. The account's other failures stay: the owner logging in during an attack must not
   * hand the attackers a fresh allowance.
   */
  async succeeded(keys: LoginKeys): Promise<void> {
    const { counters } = this;
    await Promise.all([
      counters.clear(keys.pair),
      counters.clear(keys.wait),
      counters.undo(keys.account),
      counters.undo(keys.address),
    ]);
  }
}
