/**
 * Wires identity: opens its SQL store (and Redis when configured), applies migrations when
 * asked, and serves gRPC. Handlers stay thin: they translate messages to the Accounts domain.
 */
import { identity } from '@storefront/proto';
import { bind, startGrpcServer, type RunningGrpcServer } from '@storefront/grpc';
import { dialectOf, openServiceStore, ping, type Knex } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { ServiceTokenVerifier } from '@storefront/service-token';
import { createLogger, type Logger } from '@storefront/logging';
import type { IdentityConfig, IdentityServeKeys } from './config';
import { IDENTITY_ACCESS } from './access';
import { migrations } from './migrations';
import { Accounts, type IssuedSession } from './domain/accounts';
import { PasswordHasher } from './domain/passwords';
import { UserStore, type User } from './stores/users';
import { RedisSessionStore, SqlSessionStore } from './stores/sessions';
import { connectOptionalRedis, windowCountersFor } from '@storefront/rate-limit';

export interface IdentityServer {
  address: string;
  db: Knex;
  accounts: Accounts;
  stop(): Promise<void>;
}

export interface StartOptions extends IdentityServeKeys {
  /** Apply migrations before serving (embedded default, tests). */
  migrate: boolean;
  logger?: Logger;
  /** Epoch milliseconds; tests move it to expire sessions and rate-limit windows. */
  now?: () => number;
}

const PURGE_INTERVAL_MS = 15 * 60 * 1000;

export async function startIdentityServer(config: IdentityConfig, options: StartOptions): Promise<IdentityServer> {
  const logger = options.logger ?? createLogger('identity', config.logLevel);
  const db = await openServiceStore(config.store, migrations, { migrate: options.migrate });
  const redis = await connectOptionalRedis(config.redisUrl, config.redisKeyPrefix, logger, () => db.destroy());
  const now = options.now ?? Date.now;
  const accounts = new Accounts({
    users: new UserStore(db),
    sessions: redis ? new RedisSessionStore(redis) : new SqlSessionStore(db),
    counters: windowCountersFor(db, dialectOf(db), redis),
    hasher: await PasswordHasher.create(config.argon2),
    limits: config.rateLimits,
    now,
  });
  const purge = setInterval(() => {
    accounts.purgeExpired().catch((error: unknown) => logger.warn({ err: error }, 'purging expired sessions failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();

  const grpcServer: RunningGrpcServer = await startGrpcServer({
    address: config.address,
    logger,
    serviceTokens: new ServiceTokenVerifier('identity', options.servicePublicKeys),
    callerTokens: await CallerTokenVerifier.fromPem(config.callerTokenPublicKey),
    probe: async () => {
      await ping(db);
      if (redis) await redis.ping();
    },
    services: [
      bind('storefront.identity.v1.IdentityService', identity.IdentityServiceService, IDENTITY_ACCESS, {
        signUp: async (request, context) => signedIn(await accounts.signUp(request, context.abandoned)),
        logIn: async ({ email, password, clientAddress }, context) => signedIn(await accounts.logIn(email, password, clientAddress, context.abandoned)),
        logOut: async ({ sessionToken }) => {
          await accounts.logOut(sessionToken);
          return {};
        },
        resolveSession: async ({ sessionToken }) => {
          const { user, expiresAt } = await accounts.resolveSession(sessionToken);
          return { profile: toProfile(user), expiresInMs: Math.max(0, expiresAt - now()) };
        },
        getProfile: async (_request, context) => ({ profile: toProfile(await accounts.profile(await context.requireCaller())) }),
        updateProfile: async (request, context) => ({
          profile: toProfile(await accounts.updateProfile(await context.requireCaller(), request)),
        }),
      }),
    ],
  });
  logger.info({ address: grpcServer.address, sessions: redis ? 'redis' : 'sql' }, 'identity listening');
  return {
    address: grpcServer.address,
    db,
    accounts,
    async stop() {
      clearInterval(purge);
      await grpcServer.shutdown();
      redis?.disconnect();
      await db.destroy();
    },
  };
}

function signedIn({ user, session }: { user: User; session: IssuedSession }) {
  return { profile: toProfile(user), session };
}

function toProfile(user: User): identity.Profile {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    phone: user.phone,
    createdAt: new Date(user.createdAt).toISOString(),
    referralCode: user.referralCode,
    referredBy: user.referredBy,
  };
}
