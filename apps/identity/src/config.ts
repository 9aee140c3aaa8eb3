import type { EnvReader } from '@storefront/config';
import { readGrpcServiceConfig, type GrpcServiceConfig } from '@storefront/lifecycle';
import { readWindowLimit } from '@storefront/rate-limit';
import { callersOf } from '@storefront/grpc';
import { readServiceTokenPublicKeys, type ServicePublicKeys } from '@storefront/service-token';
import { readMailConfig, type MailConfig } from '@storefront/outbox';
import { IDENTITY_ACCESS } from './access';
import type { LoginBackoff, RateLimits } from './domain/login-throttle';
import type { Argon2Settings } from './domain/passwords';
import type { ResetLimits } from './domain/password-resets';

export interface IdentityConfig extends GrpcServiceConfig {
  /** Sessions and rate-limit counters live in Redis when set, otherwise in the SQL store. */
  redisUrl?: string;
  /** Prefix of every Redis key, so several deployments (or test runs) can share a server. */
  redisKeyPrefix: string;
  rateLimits: RateLimits;
  passwordResets: ResetLimits;
  argon2: Argon2Settings;
  /** The shop's public origin: mails link to its pages. */
  publicBaseUrl: string;
  mail: MailConfig;
  /** Sessions and staff login records are deleted this long after they were made (decision 1301). */
  loginRecordRetentionMs: number;
}

export function readIdentityConfig(env: EnvReader): IdentityConfig {
  const service = readGrpcServiceConfig(env, 'identity', '127.0.0.1:50051');
  return {
    ...service,
    redisUrl: env.optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.string('REDIS_KEY_PREFIX', 'storefront:identity:'),
    rateLimits: {
      failedLoginsPerAccount: readWindowLimit(env, 'LOGIN_FAILURES_PER_ACCOUNT', 10, 15 * 60),
      failedLoginsPerAddress: readWindowLimit(env, 'LOGIN_FAILURES_PER_ADDRESS', 100, 15 * 60),
      loginBackoff: readLoginBackoff(env, 'LOGIN_BACKOFF', 5),
      recentSignInSeconds: env.int('LOGIN_RECENT_SIGN_IN_SECONDS', 30 * 24 * 3600, { min: 60, max: 365 * 24 * 3600 }),
      secondFactorBackoff: readLoginBackoff(env, 'SECOND_FACTOR_BACKOFF', 3),
      signupsPerAddress: readWindowLimit(env, 'SIGNUPS_PER_ADDRESS', 50, 60 * 60),
    },
    passwordResets: {
      requestsPerAddress: readWindowLimit(env, 'PASSWORD_RESETS_PER_ADDRESS', 20, 60 * 60),
      requestsPerAddressAndEmail: readWindowLimit(env, 'PASSWORD_RESETS_PER_ADDRESS_AND_EMAIL', 5, 60 * 60),
      requestsPerAccount: readWindowLimit(env, 'PASSWORD_RESETS_PER_ACCOUNT', 30, 60 * 60),
      confirmsPerAddress: readWindowLimit(env, 'PASSWORD_RESET_CONFIRMS_PER_ADDRESS', 20, 60 * 60),
    },
    argon2: readArgon2Settings(env),
    publicBaseUrl: env.url('PUBLIC_BASE_URL', 'http://localhost:8080'),
    mail: readMailConfig(env, service.dataDir),
    loginRecordRetentionMs: env.int('LOGIN_RECORD_RETENTION_DAYS', 365, { min: 1, max: 3650 }) * 24 * 3600 * 1000,
  };
}

/** `<PREFIX>_FREE_FAILURES`, `_BASE_SECONDS`, `_MAX_SECONDS` and `_MEMORY_SECONDS`. */
function readLoginBackoff(env: EnvReader, prefix: string, freeFailures: number): LoginBackoff {
  const maxSeconds = env.int(`${prefix}_MAX_SECONDS`, 15 * 60, { min: 1, max: 24 * 3600 });
  return {
    freeFailures: env.int(`${prefix}_FREE_FAILURES`, freeFailures, { min: 1, max: 1000 }),
    baseSeconds: env.int(`${prefix}_BASE_SECONDS`, 30, { min: 1, max: maxSeconds }),
    maxSeconds,
    // Longer than the longest wait, or the count would be forgotten while the address waits.
    memorySeconds: env.int(`${prefix}_MEMORY_SECONDS`, 24 * 3600, { min: maxSeconds, max: 30 * 24 * 3600 }),
  };
}

/**
 * argon2id at OWASP's parameters (19 MiB, two passes, one lane), and how many hashes run at once when the environment
 * names nothing else: one more than the two cores a process is sized for, so neither core idles while the event loop
 * hands a finished hash's place to the next (decision 0107). The benchmark's raw argon2id rate reads these too.
 */
export const ARGON2_DEFAULTS = { memoryKib: 19_456, timeCost: 2, parallelism: 1, maxConcurrent: 3 } as const;

// A default-cost hash takes about 30 ms of a core: 25 waiting per place drain in about a second (1.3 s with the
// default three places on two cores).
const WAITING_PER_SLOT = 25;

function readArgon2Settings(env: EnvReader): Argon2Settings {
  const maxConcurrent = env.int('ARGON2_MAX_CONCURRENT', ARGON2_DEFAULTS.maxConcurrent, { min: 1, max: 64 });
  return {
    memoryKib: env.int('ARGON2_MEMORY_KIB', ARGON2_DEFAULTS.memoryKib, { min: 1024, max: 4 * 1024 * 1024 }),
    timeCost: env.int('ARGON2_TIME_COST', ARGON2_DEFAULTS.timeCost, { min: 1, max: 20 }),
    parallelism: env.int('ARGON2_PARALLELISM', ARGON2_DEFAULTS.parallelism, { min: 1, max: 16 }),
    maxConcurrent,
    maxWaiting: env.int('PASSWORD_HASH_QUEUE_LIMIT', WAITING_PER_SLOT * maxConcurrent, { min: 0, max: 100_000 }),
  };
}

/** Keys only serving needs, read apart from the rest so `migrate` needs none of them. */
export interface IdentityServeKeys {
  /** Public keys of the services identity's access table admits. */
  servicePublicKeys: ServicePublicKeys;
}

export function readIdentityServeKeys(env: EnvReader): IdentityServeKeys {
  return { servicePublicKeys: readServiceTokenPublicKeys(env, callersOf(IDENTITY_ACCESS)) };
}
