/**
 * Password hashing with argon2id and the common-password check. The hasher keeps a hash of a
 * random secret so that a login for an unknown email costs one verification, like a real one.
 */
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError, invalidArgument } from '@storefront/errors';
import { ConcurrencyLimit, QueueFull } from './concurrency-limit';

/** argon2id cost; the defaults are OWASP's recommended minimum (19 MiB, 2 passes, 1 lane). */
export interface Argon2Settings {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
  /** Hashes computed at once; each holds memoryKib while it runs. */
  maxConcurrent: number;
  /** Hashes that may wait for a slot; beyond that a sign-up or login is refused with 503. */
  maxWaiting: number;
}

/** Whether the caller has gone (cancelled, or past its deadline); its hash is then not wanted. */
export type Abandoned = () => boolean;

const neverAbandoned: Abandoned = () => false;
/** The queue is sized to drain in about a second, so that is when a refused caller should retry. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 1;

const hashingBusy = () =>
  new AppError(
    'unavailable',
    'service_unavailable',
    `Too many sign-ups and logins are being processed; try again in ${QUEUE_FULL_RETRY_AFTER_SECONDS} second`,
    QUEUE_FULL_RETRY_AFTER_SECONDS,
  );
const callAbandoned = () =>
  new AppError('timeout', 'timeout', 'The call was cancelled or ran out of time while its password was being checked');

export class PasswordHasher {
  private constructor(
    private readonly options: {
      type: typeof argon2.argon2id;
      memoryCost: number;
      timeCost: number;
      parallelism: number;
    },
    private readonly dummyHash: string,
    private readonly limit: ConcurrencyLimit,
  ) {}

  static async create(settings: Argon2Settings): Promise<PasswordHasher> {
    const options = {
      type: argon2.argon2id,
      memoryCost: settings.memoryKib,
      timeCost: settings.timeCost,
      parallelism: settings.parallelism,
    };
    const limit = new ConcurrencyLimit(settings.maxConcurrent, settings.maxWaiting);
    return new PasswordHasher(options, await argon2.hash(randomBytes(32).toString('base64url'), options), limit);
  }

  hash(password: string, abandoned: Abandoned = neverAbandoned): Promise<string> {
    return this.run(() => argon2.hash(password, this.options), abandoned);
  }

  /** Verifies against `hash`, or against the dummy when there is no user, so timing reveals nothing. */
  async verify(hash: string | undefined, password: string, abandoned: Abandoned = neverAbandoned): Promise<boolean> {
    const matches = await this.run(() => argon2.verify(hash ?? this.dummyHash, password), abandoned);
    return hash !== undefined && matches;
  }

  /** Whether a stored hash was made with other parameters and should be replaced. */
  needsRehash(hash: string): boolean {
    return argon2.needsRehash(hash, this.options);
  }

  /**
   * Runs one hash within the limit: 503 with Retry-After when too many wait already; a caller
   * that has gone by the time its turn comes costs no hash, and one that went while it was
   * hashing gets no result, so nothing is written for an answer nobody receives.
   */
  private async run<T>(work: () => Promise<T>, abandoned: Abandoned): Promise<T> {
    let result: T;
    try {
      result = await this.limit.run(async () => {
        if (abandoned()) throw callAbandoned();
        return work();
      });
    } catch (error) {
      throw error instanceof QueueFull ? hashingBusy() : error;
    }
    if (abandoned()) throw callAbandoned();
    return result;
  }
}

let commonPasswords: Set<string> | undefined;

/**
 * Refuses passwords from the zxcvbn-ts list of the most used ones (about 49,000, from
 * breach corpora), compared case-insensitively since "Password1" is as guessable as "password1".
 */
export function rejectCommonPassword(password: string): void {
  commonPasswords ??= new Set(dictionary.passwords);
  if (commonPasswords.has(password.toLowerCase())) {
    throw invalidArgument(
      'password is one of the most commonly used passwords and would be guessed quickly; choose a less predictable one',
      'password_too_common',
    );
  }
}
