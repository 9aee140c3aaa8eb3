/**
 * Password hashing with argon2id and the common-password check. The hasher keeps a hash of a
 * random secret so that a login for an unknown email costs one verification, like a real one.
 */
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { invalidArgument } from '@storefront/errors';
import type { Argon2Settings } from '../config';
import { ConcurrencyLimit } from './concurrency-limit';

export class PasswordHasher {
  private constructor(
    private readonly options: { type: typeof argon2.argon2id; memoryCost: number; timeCost: number; parallelism: number },
    private readonly dummyHash: string,
    private readonly limit: ConcurrencyLimit,
  ) {}

  static async create(settings: Argon2Settings): Promise<PasswordHasher> {
    const options = { type: argon2.argon2id, memoryCost: settings.memoryKib, timeCost: settings.timeCost, parallelism: settings.parallelism };
    return new PasswordHasher(options, await argon2.hash(randomBytes(32).toString('base64url'), options), new ConcurrencyLimit(settings.maxConcurrent));
  }

  hash(password: string): Promise<string> {
    return this.limit.run(() => argon2.hash(password, this.options));
  }

  /** Verifies against `hash`, or against the dummy when there is no user, so timing reveals nothing. */
  async verify(hash: string | undefined, password: string): Promise<boolean> {
    const matches = await this.limit.run(() => argon2.verify(hash ?? this.dummyHash, password));
    return hash !== undefined && matches;
  }

  /** Whether a stored hash was made with other parameters and should be replaced. */
  needsRehash(hash: string): boolean {
    return argon2.needsRehash(hash, this.options);
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
