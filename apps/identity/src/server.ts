/**
 * Wires identity: its SQL store (and Redis when configured) and the Accounts domain behind
 * gRPC. Handlers stay thin: they translate messages to the Accounts domain.
 */
import { recordExport, staffActionMessage, staffActionsPage } from '@storefront/staff-audit';
import { identity } from '@storefront/proto';
import { bind } from '@storefront/grpc';
import { dialectOf } from '@storefront/db';
import {
  openComponent,
  repeatInBackground,
  startGrpcService,
  type BuildContext,
  type OpenComponent,
  type RunningGrpcService,
  type ServiceParts,
  type ServiceStartOptions,
} from '@storefront/lifecycle';
import { windowCountersFor } from '@storefront/rate-limit';
import { mailLogPage, mailPreview, mailSenderFor, sentMailMessage, type PassSummary } from '@storefront/outbox';
import type { IdentityConfig, IdentityServeKeys } from './config';
import { IDENTITY_ACCESS } from './access';
import { migrations } from './migrations';
import { Accounts, profileOf, type IssuedSession } from './domain/accounts';
import { PasswordHasher } from './domain/passwords';
import { PasswordResets } from './domain/password-resets';
import { AccountCredentials } from './domain/account-credentials';
import { StaffAccounts } from './domain/staff-accounts';
import { StaffCustomers } from './domain/staff-customers';
import { accountData, listDataRequests, recordDataRequest } from './domain/account-data';
import { AccountErasures } from './domain/account-erasure';
import { purgeIdentityRecords, type IdentityRetentionSummary } from './domain/retention';
import { MarketingConsents, type ConsentRecord } from './domain/marketing-consent';
import { EmailVerificationStore } from './stores/email-verifications';
import { StaffRoster, parseStaffRole, staffStateOf, type IssuedSetup } from './domain/staff-roster';
import { PasswordResetStore } from './stores/password-resets';
import { StaffStore, type StaffMember, type StaffWithLastLogin } from './stores/staff';
import { UserStore, type User } from './stores/users';
import { RedisSessionStore, SqlSessionStore } from './stores/sessions';

export interface IdentityServer extends RunningGrpcService, IdentityHandles {}

export type StartOptions = ServiceStartOptions & IdentityServeKeys;

const PURGE_INTERVAL_MS = 15 * 60 * 1000;
// The final mail of an erasure is sent within seconds; its record completes on the next pass.
const ERASURE_PASS_INTERVAL_MS = 60 * 1000;
const ERASURES_PER_PASS = 100;
// Periods are counted in days: a pass an hour keeps each within the hour of its end.
const RETENTION_PASS_INTERVAL_MS = 60 * 60 * 1000;

export interface IdentityHandles {
  accounts: Accounts;
  passwordResets: PasswordResets;
  /** Sends the mail that is due now (tests, operators) instead of waiting for the sender. */
  sendMailNow(): Promise<PassSummary>;
  /** Completes the erasures whose final mail was sent (tests, operators) instead of waiting for the timer. */
  completeErasuresNow(): Promise<number>;
  /** Deletes what its retention period is over for (tests, operators) instead of waiting for the timer. */
  purgeRetainedNow(): Promise<IdentityRetentionSummary>;
  staffAccounts: StaffAccounts;
  marketingConsents: MarketingConsents;
}

/** Identity in a process of its own, served over gRPC. */
export function startIdentityServer(config: IdentityConfig, options: StartOptions): Promise<IdentityServer> {
  return startGrpcService(
    { service: 'identity', config, migrations, ...options },
    buildIdentity(config, options.now ?? Date.now),
  );
}

/** Identity as a component of the process that hosts it, called in-process. */
export function openIdentityComponent(
  config: IdentityConfig,
  options: ServiceStartOptions,
): Promise<OpenComponent<IdentityHandles>> {
  return openComponent(
    { service: 'identity', config, migrations, ...options },
    buildIdentity(config, options.now ?? Date.now),
  );
}

function buildIdentity(config: IdentityConfig, now: () => number) {
  return async ({ db, redis, logger }: BuildContext): Promise<ServiceParts<IdentityHandles>> => {
    const mailSender = mailSenderFor('identity', db, config.mail, logger, now);
    const mailQueued = () => mailSender.wake();
    const users = new UserStore(db);
    const counters = windowCountersFor(db, dialectOf(db), redis);
    const hasher = await PasswordHasher.create(config.argon2);
    const resets = new PasswordResetStore(db);
    const credentials = new AccountCredentials({
      users,
      verifications: new EmailVerificationStore(db),
      counters,
      hasher,
      limits: config.rateLimits,
      publicBaseUrl: config.publicBaseUrl,
      now,
      mailQueued,
    });
    const marketingConsents = new MarketingConsents(db, now, config.publicBaseUrl);
    const sessions = redis ? new RedisSessionStore(redis) : new SqlSessionStore(db);
    const accounts = new Accounts({
      users,
      sessions,
      consents: marketingConsents,
      counters,
      hasher,
      limits: config.rateLimits,
      now,
      credentials,
      mailQueued,
    });
    const staffStore = new StaffStore(db);
    const staffRoster = new StaffRoster(staffStore, now);
    const staffAccounts = new StaffAccounts({
      staff: staffStore,
      sessions: redis
        ? new RedisSessionStore(redis, 'staff-session')
        : new SqlSessionStore(db, 'staff_sessions', 'staff_id'),
      counters,
      hasher,
      limits: config.rateLimits,
      now,
      mailQueued,
    });
    const staffCustomers = new StaffCustomers(users);
    const erasures = new AccountErasures(db, users);
    const purgeRetained = () =>
      purgeIdentityRecords({ db, sqlSessions: !redis, loginRecordsMs: config.loginRecordRetentionMs }, now());
    const passwordResets = new PasswordResets({
      users,
      resets,
      counters,
      hasher,
      limits: config.passwordResets,
      publicBaseUrl: config.publicBaseUrl,
      logger,
      now,
      mailQueued,
    });
    return {
      describe: { sessions: redis ? 'redis' : 'sql' },
      startBackground() {
        const stopPurge = repeatInBackground(
          PURGE_INTERVAL_MS,
          () =>
            Promise.all([
              accounts.purgeExpired(),
              staffAccounts.purgeExpired(),
              resets.purgeExpired(now()),
              credentials.purgeExpired(),
            ]),
          logger,
          'purging expired sessions failed',
        );
        const stopErasurePass = repeatInBackground(
          ERASURE_PASS_INTERVAL_MS,
          () => erasures.completeMailed(now(), ERASURES_PER_PASS),
          logger,
          'completing erasures whose final mail was sent failed',
        );
        const stopRetention = repeatInBackground(
          RETENTION_PASS_INTERVAL_MS,
          purgeRetained,
          logger,
          'deleting records past their retention period failed',
        );
        mailSender.start();
        return async () => {
          stopPurge();
          stopErasurePass();
          stopRetention();
          await passwordResets.settled();
          await mailSender.stop();
        };
      },
      exposed: {
        accounts,
        passwordResets,
        staffAccounts,
        marketingConsents,
        sendMailNow: () => mailSender.sendDue(),
        completeErasuresNow: () => erasures.completeMailed(now(), ERASURES_PER_PASS),
        purgeRetainedNow: purgeRetained,
      },
      bindings: [
        bind('storefront.identity.v1.IdentityService', identity.IdentityServiceService, IDENTITY_ACCESS, {
          listStaffActions: async (request) => ({ page: await staffActionsPage(db, request.query) }),
          listMailLog: async (request) => ({ page: await mailLogPage(db, request.query) }),
          getMailForStaff: async (request) => ({ mail: await mailPreview(db, request.key) }),
          signUp: async (request, context) => {
            const { referrer, ...account } = await accounts.signUp(request, context.abandoned);
            return { ...signedIn(account), referrer: referrer && { userId: referrer.id, email: referrer.email } };
          },
          verifyEmail: ({ token }) => credentials.verify(token),
          changePassword: async ({ currentPassword, newPassword, clientAddress }, context) => ({
            session: await accounts.changePassword(
              await context.requireCaller(),
              currentPassword,
              newPassword,
              clientAddress,
              context.abandoned,
            ),
          }),
          requestEmailChange: async ({ currentPassword, newEmail, clientAddress }, context) => ({
            profile: toProfile(
              await credentials.requestChange(
                await context.requireCaller(),
                currentPassword,
                newEmail,
                clientAddress,
                context.abandoned,
              ),
            ),
          }),
          logIn: async ({ email, password, clientAddress }, context) =>
            signedIn(await accounts.logIn(email, password, clientAddress, context.abandoned)),
          logOut: async ({ sessionToken }) => {
            await accounts.logOut(sessionToken);
            return {};
          },
          resolveSession: async ({ sessionToken }) => {
            const { user, expiresAt } = await accounts.resolveSession(sessionToken);
            return { profile: toProfile(user), expiresInMs: Math.max(0, expiresAt - now()) };
          },
          getProfile: async (_request, context) => ({
            profile: toProfile(await accounts.profile(await context.requireCaller())),
          }),
          updateProfile: async (request, context) => ({
            profile: toProfile(await accounts.updateProfile(await context.requireCaller(), request)),
          }),
          requestPasswordReset: async ({ email, clientAddress }) => {
            await passwordResets.request(email, clientAddress);
            return {};
          },
          resetPassword: async ({ token, password, clientAddress }) => ({
            userId: await passwordResets.confirm(token, password, clientAddress),
          }),
          getStaffSetup: async ({ setupToken, browserBinding }) => {
            const offer = await staffAccounts.setupOffer(setupToken, browserBinding);
            return { staff: offer.member, totpSecret: offer.totpSecret, otpauthUri: offer.otpauthUri };
          },
          completeStaffSetup: async (request, context) => {
            const { member, recoveryCodes } = await staffAccounts.completeSetup(request, context.abandoned);
            return { staff: toStaffMember(member), recoveryCodes };
          },
          listStaff: async () => ({ staff: (await staffRoster.list()).map(toStaffMemberState) }),
          addStaff: async ({ email, role }, context) =>
            toIssuedSetup(await staffRoster.add(email, parseStaffRole(role), context.staff!)),
          resetStaff: async ({ email }, context) =>
            toIssuedSetup(await staffRoster.reissueSetup(email, context.staff!)),
          disableStaff: async ({ email }, context) => {
            const member = await staffRoster.disable(email, context.staff!);
            return { staff: toStaffMember(member), disabledAt: new Date(member.disabledAt!).toISOString() };
          },
          reenableStaff: async ({ email }, context) => toIssuedSetup(await staffRoster.reenable(email, context.staff!)),
          staffLogIn: async (request, context) => {
            const { member, session } = await staffAccounts.logIn(request, context.abandoned);
            return { staff: toStaffMember(member), session };
          },
          staffLogOut: async ({ sessionToken, clientAddress }) => {
            await staffAccounts.logOut(sessionToken, clientAddress);
            return {};
          },
          findCustomerForStaff: async ({ email }) => ({ customer: toProfile(await staffCustomers.byEmail(email)) }),
          getCustomerForStaff: async ({ accountId }) => ({ customer: toProfile(await staffCustomers.byId(accountId)) }),
          searchCustomersForStaff: async ({ name, limit }) => {
            const found = await staffCustomers.byName(name, limit);
            return { customers: found.customers.map(toProfile), more: found.more };
          },
          listCustomersForStaff: async (request) => {
            const page = await staffCustomers.createdBetween(request);
            return { customers: page.customers.map(toProfile), nextCursor: page.nextCursor };
          },
          recordCustomersExport: async (request, context) =>
            recordExport(db, context.staff!, 'customers', request, now()),
          getMarketingConsent: async (_request, context) => {
            const consent = await marketingConsents.current(await context.requireCaller());
            return consent ? { consent: toConsent(consent) } : {};
          },
          setMarketingConsent: async ({ granted }, context) => ({
            consent: toConsent(await marketingConsents.record(await context.requireCaller(), granted, 'account')),
          }),
          unsubscribe: async ({ token }) => ({
            consent: toConsent(
              await marketingConsents.unsubscribe(
                token,
                async (userId) => (await users.findById(userId)) !== undefined,
              ),
            ),
          }),
          closeAccount: async ({ password, clientAddress }, context) => {
            const user = await credentials.withCurrentPassword(
              await context.requireCaller(),
              password,
              clientAddress,
              context.abandoned,
            );
            await erasures.close(user, now());
            return { accountId: user.id, email: user.email };
          },
          closeAccountForStaff: async ({ accountId }, context) => {
            const user = await erasures.closeForStaff(accountId, context.staff!, now());
            return { accountId, email: user.email };
          },
          listPendingErasures: async ({ limit }) => ({
            erasures: await erasures.pending(limit === 0 ? 100 : Math.min(Math.max(limit, 1), 200)),
          }),
          recordErasureStep: async ({ accountId, component }) => ({
            componentsDone: await erasures.recordStep(accountId, component, now()),
          }),
          listDataRequestsForStaff: async ({ limit }) => ({
            requests: (await listDataRequests(db, limit === 0 ? 100 : Math.min(Math.max(limit, 1), 200))).map(
              (request) => ({
                accountId: request.accountId,
                email: request.email ?? '',
                kind: request.kind,
                requestedAt: new Date(request.requestedAt).toISOString(),
                dueAt: new Date(request.dueAt).toISOString(),
                completedAt: request.completedAt === undefined ? '' : new Date(request.completedAt).toISOString(),
              }),
            ),
          }),
          exportAccountData: async (_request, context) => {
            const caller = await context.requireCaller();
            const data = await accountData(caller, {
              db,
              users,
              sessions,
              consents: marketingConsents,
              now,
            });
            const answer = {
              profile: toProfile(data.user),
              marketingConsents: data.consents.map(toConsent),
              sessions: data.sessions.map((session) => ({
                createdAt: new Date(session.createdAt).toISOString(),
                expiresAt: new Date(session.expiresAt).toISOString(),
              })),
              mails: data.mails.map(sentMailMessage),
              staffActions: data.staffActions.map(staffActionMessage),
            };
            await recordDataRequest(db, caller, 'export', now(), true);
            return answer;
          },
          resolveStaffSession: async ({ sessionToken }) => {
            const { member, expiresAt } = await staffAccounts.resolveSession(sessionToken);
            return { staff: toStaffMember(member), expiresInMs: Math.max(0, expiresAt - now()) };
          },
        }),
      ],
    };
  };
}

function signedIn({ user, session }: { user: User; session: IssuedSession }) {
  return { profile: toProfile(user), session };
}

function toConsent(record: ConsentRecord): identity.MarketingConsent {
  return {
    granted: record.granted,
    wordingVersion: record.wordingVersion,
    recordedAt: new Date(record.recordedAt).toISOString(),
    source: record.source,
  };
}

function toStaffMember(member: StaffMember): identity.StaffMember {
  return { id: member.id, email: member.email, role: member.role };
}

function toStaffMemberState({ member, lastLoginAt }: StaffWithLastLogin): identity.StaffMemberState {
  return {
    member: toStaffMember(member),
    state: staffStateOf(member),
    addedAt: new Date(member.createdAt).toISOString(),
    lastLoginAt: lastLoginAt === undefined ? '' : new Date(lastLoginAt).toISOString(),
  };
}

/** A member and their new set-up link's token, shown once by the console. */
function toIssuedSetup({ member, setupToken }: IssuedSetup) {
  return {
    staff: toStaffMember(member),
    setupToken,
    setupExpiresAt: new Date(member.setupExpiresAt!).toISOString(),
  };
}

function toProfile(user: User): identity.Profile {
  const profile = profileOf(user);
  return {
    ...profile,
    createdAt: new Date(profile.createdAt).toISOString(),
    emailVerifiedAt:
      profile.emailVerifiedAt === undefined ? undefined : new Date(profile.emailVerifiedAt).toISOString(),
  };
}
