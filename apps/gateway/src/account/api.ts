/**
 * Accounts through the API: sign-up, log-in, password reset, log-out, me and state sync. The workflows are the
 * application's (application/accounts.ts); these routes read the request, set or clear the `svc_sess` cookie and
 * answer the contract's shapes.
 */
import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { AppError, unauthenticated } from '@storefront/errors';
import type { identity } from '@storefront/proto';
import type { GatewayContext } from '../context';
import {
  changePassword,
  endSession,
  logIn,
  readSignedInCustomer,
  requestEmailChange,
  resetPassword,
  saveCustomerState,
  signUp,
  verifyEmail,
} from '../application/accounts';
import { closeAccount } from '../application/account-erasure';
import { loyaltyView, type LoyaltyView } from '../application/loyalty';
import { EDITABLE_PROFILE_FIELDS, profileEdit, profileView } from '../application/profile';
import { crossSiteResponse, errorResponse, jsonBodyRefusals, jsonResponse, rateLimitedResponse } from '../kit/api-docs';
import {
  CLEARED_SESSION_COOKIE,
  clearSessionCookie,
  clientAddress,
  clientAddressResolver,
  requireSession,
  resolveSessionToken,
  sessionCookie,
  sessionFirst,
  sessionTokenOf,
  setSessionCookie,
} from '../kit/customer-session';
import { bodyRefusal, errorAnswer } from '../kit/errors';
import { apiRoute, directGet, jsonPost, type ApiRoutes } from '../kit/routes';
import type { Static } from '../kit/schema';
import { LOYALTY_WELCOME } from '@storefront/formats';
import {
  AuthSuccess,
  CloseAccountRequest,
  EmailChangeAccepted,
  EmailChangeRequest,
  hashingBusy,
  LoginRequest,
  noSession,
  PasswordChangeRequest,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  rateLimited,
  serviceDown,
  sessionCookieCleared,
  sessionCookieSet,
  SignUpRequest,
  StateSyncRequest,
  SuccessResult,
  VerifyEmailRequest,
} from './schemas';

const PRIVATE_JSON = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

export const accountApi: ApiRoutes<GatewayContext> = {
  tags: [
    {
      name: 'auth',
      description: 'Customer accounts and the `svc_sess` session cookie (30 days, HttpOnly, Secure, SameSite=Lax).',
    },
  ],
  routes: [
    apiRoute({
      method: 'post',
      path: '/api/auth/signup',
      operation: {
        operationId: 'signUp',
        summary: `Create an account with the ${LOYALTY_WELCOME.points}-point welcome bonus and start a session`,
        tags: ['auth'],
        responses: {
          '200': {
            ...jsonResponse(
              'Account created; the session cookie is set. Should the loyalty service be unreachable ' +
                'for a moment, `loyalty` shows the welcome ' +
                `bonus the account is owed (${LOYALTY_WELCOME.points} points, ` +
                `${LOYALTY_WELCOME.tier}, one \`welcome\` entry, no rewards listed); ` +
                'the ledger grants it on the next read.',
              AuthSuccess,
            ),
            headers: sessionCookieSet,
          },
          '400': errorResponse(
            'Invalid body, naming the field: email format, password length or commonness, names, ' +
              'phone, unknown referral code, unknown fields; or `malformed_json`',
          ),
          '403': crossSiteResponse,
          '409': errorResponse(
            'The email is already registered (`email_taken`). The address of a new account is mailed ' +
              'a link to verify it (POST /api/auth/verify-email) and nothing else until it is used; the welcome ' +
              'follows it.',
          ),
          ...jsonBodyRefusals,
          '429': rateLimited,
          ...hashingBusy,
        },
      },
      body: { schema: SignUpRequest },
      normalise: trimEmailOf,
      handle: (context) => async (req, res, body) => {
        const signedIn = await signUp(context, {
          email: body.email,
          password: body.password,
          firstName: body.firstName,
          lastName: body.lastName,
          phone: body.phone,
          referralCode: body.referralCode,
          marketingConsent: body.marketingConsent,
          clientAddress: clientAddress(req),
        });
        setSessionCookie(res, signedIn.session);
        sendPrivate(res, authSuccess(signedIn.profile, signedIn.loyalty));
      },
    }),
    jsonPost({
      path: '/api/auth/login',
      operation: {
        operationId: 'logIn',
        summary: 'Start a new session',
        description:
          'Every login issues a new session, and only a 200 answer sets a cookie or leaves a session ' +
          'behind. An unknown email, a wrong ' +
          'password and a request that cannot be credentials (not JSON, too large, a field missing ' +
          'or malformed) all get 401 ' +
          '`invalid_credentials`; the detail names what is wrong with a malformed request. Failed ' +
          'logins are limited per account and per client address.',
        tags: ['auth'],
        responses: {
          '200': { ...jsonResponse('Logged in; the session cookie is set', AuthSuccess), headers: sessionCookieSet },
          '401': errorResponse(
            '`invalid_credentials`: the email or password is incorrect, or the request cannot be credentials',
          ),
          '403': crossSiteResponse,
          '429': rateLimited,
          ...hashingBusy,
        },
      },
      body: { schema: LoginRequest },
      normalise: trimEmailOf,
      // Whatever cannot be credentials is a failed login: 401, naming what is wrong (docs/decisions/0761).
      refusal: asFailedLogin,
      answer: (context) => {
        const addressOf = clientAddressResolver(context.config.trustedProxies);
        return async (request: IncomingMessage, body: Static<typeof LoginRequest>) => {
          const { session, profile, loyalty } = await logIn(context, {
            email: body.email,
            password: body.password,
            clientAddress: addressOf(request),
          });
          return {
            status: 200,
            headers: { ...PRIVATE_JSON, 'Set-Cookie': sessionCookie(session) },
            body: Buffer.from(JSON.stringify(authSuccess(profile, loyalty))),
          };
        };
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/password-reset',
      operation: {
        operationId: 'requestPasswordReset',
        summary: 'Mail a password reset link',
        description:
          'If the email belongs to an account, a link to `/account/reset-password?token=…` is ' +
          'mailed, valid for one hour and usable once. ' +
          'The answer is the same 202, after the same work, whether or not the email has an account, ' +
          'so it tells nobody which emails are registered. ' +
          'Requests are limited per client address and per email.',
        tags: ['auth'],
        responses: {
          '202': jsonResponse('Accepted: a link is mailed if the email has an account', SuccessResult),
          '400': errorResponse('Invalid body, naming the field, or `malformed_json`'),
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '429': rateLimitedResponse('too many reset requests from this address or for this email'),
          ...serviceDown,
        },
      },
      body: { schema: PasswordResetRequest },
      normalise: trimEmailOf,
      handle:
        ({ clients }) =>
        async (req, res, body) => {
          await clients.identity.requestPasswordReset({ email: body.email, clientAddress: clientAddress(req) });
          res.status(202);
          sendPrivate(res, { success: true });
        },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/password-reset/confirm',
      operation: {
        operationId: 'confirmPasswordReset',
        summary: 'Set a new password with a reset link',
        description:
          'Sets the new password, ends every session of the account (on every replica), and mails a ' +
          'notice that the password changed. ' +
          'The token works once and for one hour; it is then refused with 400 `invalid_reset_token`. ' +
          'No session is started: log in with the new password.',
        tags: ['auth'],
        responses: {
          '200': jsonResponse('The password is changed and every session of the account has ended', SuccessResult),
          '400': errorResponse(
            '`invalid_reset_token`: unknown, used or expired; or an invalid body naming the field ' +
              '(password length or commonness), or `malformed_json`',
          ),
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '429': rateLimitedResponse('too many reset attempts from this address'),
          ...hashingBusy,
        },
      },
      body: { schema: PasswordResetConfirmRequest },
      handle: (context) => async (req, res, body) => {
        await resetPassword(context, { token: body.token, password: body.password, clientAddress: clientAddress(req) });
        sendPrivate(res, { success: true });
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/verify-email',
      operation: {
        operationId: 'verifyEmail',
        summary: 'Verify an email address with the link mailed to it',
        description:
          'The link in the verification mail (`/account/verify-email?token=…`, sent at sign-up and for a new ' +
          'address) works once, within 24 hours, in any browser, signed in or not. Its address becomes the ' +
          "account's, with `emailVerifiedAt`; the first verification of an account mails the welcome, a new " +
          'address has the old one told that it changed.',
        tags: ['auth'],
        responses: {
          '200': jsonResponse('The address is verified', SuccessResult),
          '400': errorResponse(
            '`invalid_verification_token`: unknown, used or expired; or an invalid body naming the ' +
              'field, or `malformed_json`',
          ),
          '403': crossSiteResponse,
          '409': errorResponse('`email_taken`: another account verified this address meanwhile'),
          ...jsonBodyRefusals,
          ...serviceDown,
        },
      },
      body: { schema: VerifyEmailRequest },
      handle: (context) => async (_req, res, body) => {
        await verifyEmail(context, body.token);
        sendPrivate(res, { success: true });
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/password',
      operation: {
        operationId: 'changePassword',
        summary: 'Change the password, signed in',
        description:
          'Needs the current password. Every other session of the account ends (on every replica); ' +
          'this one goes on under a new cookie. ' +
          'A verified address is told by mail. A wrong current password counts as a failed login of the account.',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': {
            ...jsonResponse('Changed; the new session cookie is set', SuccessResult),
            headers: sessionCookieSet,
          },
          '400': errorResponse(
            '`invalid_current_password`; or an invalid body naming the field (new password length or ' +
              'commonness), or `malformed_json`',
          ),
          '401': noSession,
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '429': rateLimited,
          ...hashingBusy,
        },
      },
      body: { schema: PasswordChangeRequest },
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res, body) => {
        const { userId } = await requireSession(req, res, context);
        const session = await changePassword(context, userId, {
          currentPassword: body.currentPassword,
          newPassword: body.newPassword,
          clientAddress: clientAddress(req),
        });
        setSessionCookie(res, session);
        sendPrivate(res, { success: true });
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/email',
      operation: {
        operationId: 'requestEmailChange',
        summary: 'Change the email address, signed in',
        description:
          'Needs the current password. A link is mailed to the new address; the account keeps its ' +
          'address (and logs in with it) until the link ' +
          'is used (POST /api/auth/verify-email), then the old address is told. Until then the ' +
          'profile shows the new one as `pendingEmail`; ' +
          'asking again replaces the earlier link. An account whose own address is not verified yet ' +
          'may give that address: a new link goes to it. ' +
          'An account asks for at most 5 links an hour (429).',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        responses: {
          '202': jsonResponse('A link is on its way to the new address', EmailChangeAccepted),
          '400': errorResponse(
            '`invalid_current_password`; or an invalid body naming the field (an email that is not ' +
              'one, or the verified address of the account), or `malformed_json`',
          ),
          '401': noSession,
          '403': crossSiteResponse,
          '409': errorResponse('`email_taken`: another account has this address'),
          ...jsonBodyRefusals,
          '429': rateLimited,
          ...hashingBusy,
        },
      },
      body: { schema: EmailChangeRequest },
      normalise: trimEmailOf,
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res, body) => {
        const { userId } = await requireSession(req, res, context);
        const profile = await requestEmailChange(context, userId, {
          currentPassword: body.currentPassword,
          newEmail: body.email,
          clientAddress: clientAddress(req),
        });
        res.status(202);
        sendPrivate(res, { success: true, user: { profile: profileView(profile) } });
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/close-account',
      operation: {
        operationId: 'closeAccount',
        summary: 'Close the account and erase what identifies the customer',
        description:
          'Needs the current password and the confirming words. The account ends at once (every session, on every ' +
          'replica; the address is free for a new sign-up) and every component erases the name, address, phone and ' +
          'mails it holds, resumed until all have (docs/decisions/1300); order totals, VAT records and the loyalty ' +
          "ledger's sums stay, under no name. A final mail confirms it. Refused while an order is unpaid or a refund " +
          'pending. A wrong password counts as a failed login of the account.',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': { ...jsonResponse('Closed; the cookie is cleared', SuccessResult), headers: sessionCookieCleared },
          '400': errorResponse(
            '`invalid_current_password`; or an invalid body naming the field (`confirm`), or `malformed_json`',
          ),
          '401': noSession,
          '403': crossSiteResponse,
          '409': errorResponse('`erasure_refused`: an order is unpaid or a refund pending; the detail names it'),
          ...jsonBodyRefusals,
          '429': rateLimited,
          ...hashingBusy,
        },
      },
      body: { schema: CloseAccountRequest },
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res, body) => {
        const { userId } = await requireSession(req, res, context);
        await closeAccount(context, userId, body.currentPassword, clientAddress(req));
        clearSessionCookie(res);
        sendPrivate(res, { success: true });
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/auth/logout',
      operation: {
        operationId: 'logOut',
        summary: 'End the session server-side and clear the cookie',
        description: 'Takes no request body; whatever body is sent is not read.',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': { ...jsonResponse('Logged out', SuccessResult), headers: sessionCookieCleared },
          '401': noSession,
          '403': crossSiteResponse,
          ...serviceDown,
        },
      },
      handle: (context) => async (req, res) => {
        const sessionToken = sessionTokenOf(req);
        if (sessionToken === undefined) throw unauthenticated();
        try {
          await endSession(context, sessionToken);
        } catch (error) {
          // A cookie identity does not know is dead either way: let the browser forget it.
          if (error instanceof AppError && error.kind === 'unauthenticated') clearSessionCookie(res);
          throw error;
        }
        clearSessionCookie(res);
        sendPrivate(res, { success: true });
      },
    }),
    // The busiest session read, answered ahead of Express (kit/direct-routes.ts). A cookie that names no session is
    // cleared, as on every other route.
    directGet({
      path: '/api/auth/me',
      operation: {
        operationId: 'getMe',
        summary: 'The logged-in customer: profile and loyalty',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': jsonResponse('The session is valid', AuthSuccess),
          '401': noSession,
          ...serviceDown,
        },
      },
      answer: (context) => async (request) => {
        const token = sessionTokenOf(request);
        const session = token === undefined ? undefined : await resolveSessionToken(token, context);
        if (!session) {
          const refused = errorAnswer(unauthenticated(), context.logger, '/api/auth/me');
          return token === undefined
            ? refused
            : { ...refused, headers: { ...refused.headers, 'Set-Cookie': CLEARED_SESSION_COOKIE } };
        }
        const [{ profile }, { account }] = await readSignedInCustomer(context, session);
        return {
          status: 200,
          headers: PRIVATE_JSON,
          body: Buffer.from(JSON.stringify(authSuccess(profile!, loyaltyView(account)))),
        };
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/state/sync',
      operation: {
        operationId: 'syncState',
        summary: 'Save profile edits and loyalty redemption requests',
        description:
          `Only ${EDITABLE_PROFILE_FIELDS} of the profile change. Loyalty state is sanitised: ` +
          'balances, tier and history are never taken from the client; a listed reward not yet redeemed is a ' +
          'redemption request. ' +
          'The session is checked before the body is read: without one the answer is 401 whatever the body.',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': jsonResponse('Saved', SuccessResult),
          '400': errorResponse('Invalid body, naming the field, or `malformed_json`; nothing was saved'),
          '401': noSession,
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          ...serviceDown,
        },
      },
      body: { schema: StateSyncRequest, required: false },
      // The session comes first: without one the answer is 401 whatever the body says.
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res, body) => {
        const { userId } = await requireSession(req, res, context);
        await saveCustomerState(context, userId, {
          profile: profileEdit(body.profile),
          rewardIds: requestedRewardIds(body.loyalty),
        });
        sendPrivate(res, { success: true });
      },
    }),
  ],
};

/** The contract's AuthSuccess. */
function authSuccess(profile: identity.Profile, loyalty: LoyaltyView): Static<typeof AuthSuccess> {
  return { success: true, user: { profile: profileView(profile) }, loyalty };
}

/** Answers that carry personal data or a credential are never stored by caches. */
function sendPrivate(res: Response, body: unknown): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json(body);
}

/**
 * Reward ids the client asks to redeem: `redeemedRewards` entries without a `code`. An entry with a code echoes a
 * redemption the server issued and asks for nothing. Loyalty skips ids it holds an unused code for, so repeated or
 * replayed syncs redeem nothing more (docs/decisions/0202).
 */
export function requestedRewardIds(loyaltyState: Static<typeof StateSyncRequest>['loyalty']): string[] {
  const ids = (loyaltyState?.redeemedRewards ?? [])
    .filter((entry) => entry.code === undefined || entry.code === '')
    .map((entry) => entry.rewardId)
    .filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}

/**
 * Login's error rule: a request body that cannot be credentials (refused by the parser, or invalid against
 * LoginRequest, here or in identity) is the 401 a wrong password gets, with a detail naming what is wrong. Other
 * failures (429, 503, ...) pass unchanged.
 */
function asFailedLogin(error: unknown): unknown {
  const problem =
    bodyRefusal(error)?.detail ??
    (error instanceof AppError && error.kind === 'invalid_argument' ? error.detail : undefined);
  return problem === undefined ? error : unauthenticated(problem, 'invalid_credentials');
}

/** Browsers and autofill add stray spaces around emails; identity compares them trimmed anyway. */
function trimEmailOf(body: unknown): void {
  const fields = body as { email?: unknown } | null | undefined;
  if (fields && typeof fields === 'object' && typeof fields.email === 'string') fields.email = fields.email.trim();
}
