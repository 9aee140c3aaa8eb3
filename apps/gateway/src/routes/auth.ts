/**
 * Accounts through the gateway: signup, login, logout, me and state sync. Identity owns
 * accounts and sessions, loyalty owns the points; these handlers validate, call each service
 * once and compose the contract's AuthSuccess.
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import { AppError, unauthenticated } from '@storefront/errors';
import type { identity } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { bodyRefusal, errorAnswer, methodNotAllowed } from '../kit/errors';
import { sendAnswer, type Answer, type DirectRoutes } from '../kit/direct-routes';
import { jsonBody } from '../kit/json-body';
import { addJsonPostAhead } from '../kit/json-posts';
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
import { accountRevocation, sessionKey } from '../kit/session-cache';
import { loyaltyView, owedWelcomeLoyalty, requestedRewardIds, type LoyaltyView } from '../views/loyalty';
import type { Static } from '../kit/schema';
import {
  LoginRequest,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  SignUpRequest,
  StateSyncRequest,
} from '../openapi/areas/auth';

const PRIVATE_JSON = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
const LOGIN = '/api/auth/login';

export function registerAuthRoutes(app: Express, direct: DirectRoutes, context: GatewayContext): void {
  const { clients, validator, logger, config, revocations } = context;
  const parseJson = jsonBody(config.bodyLimitBytes);

  const sessionRequired = sessionFirst(context);

  app
    .route('/api/auth/signup')
    .post(parseJson, trimEmail, validator.body(SignUpRequest), async (req, res) => {
      const body = req.body as Static<typeof SignUpRequest>;
      const { profile, session } = await clients.identity.signUp({
        email: body.email,
        password: body.password,
        firstName: body.firstName,
        lastName: body.lastName,
        phone: body.phone,
        referralCode: body.referralCode,
        clientAddress: clientAddress(req),
      });
      setSessionCookie(res, session!);
      sendPrivate(res, authSuccess(profile!, await welcomeLoyalty(profile!.id, profile!.createdAt)));
    })
    .all(methodNotAllowed('POST'));

  const addressOf = clientAddressResolver(config.trustedProxies);
  /** A login with checked credentials: the new session's cookie and the customer's AuthSuccess. */
  const logIn = async (request: IncomingMessage, body: Static<typeof LoginRequest>): Promise<Answer> => {
    const { profile, session } = await clients.identity.logIn({
      email: body.email,
      password: body.password,
      clientAddress: addressOf(request),
    });
    let account;
    try {
      ({ account } = await clients.loyalty.getAccount({}, { customer: profile!.id }));
    } catch (error) {
      // No answer but 200 hands out a session, so none may be left behind (docs/decisions/0762).
      await discardSession(session!.token);
      throw error;
    }
    return {
      status: 200,
      headers: { ...PRIVATE_JSON, 'Set-Cookie': sessionCookie(session!) },
      body: Buffer.from(JSON.stringify(authSuccess(profile!, loyaltyView(account)))),
    };
  };
  app
    .route(LOGIN)
    // Whatever cannot be credentials (not JSON, too large, a missing or malformed field) is a
    // failed login: 401, naming what is wrong (docs/decisions/0761).
    .post(
      parseJson,
      trimEmail,
      validator.body(LoginRequest),
      async (req: Request, res: Response) => {
        sendAnswer(res, await logIn(req, req.body as Static<typeof LoginRequest>));
      },
      refusedCredentials,
    )
    .all(methodNotAllowed('POST'));
  // A plain JSON body is read and answered ahead of Express, as the Express route would, with its error rule.
  addJsonPostAhead(direct, context, {
    path: LOGIN,
    schema: LoginRequest,
    normalise: trimEmailOf,
    refusal: asFailedLogin,
    answer: logIn,
  });

  app
    .route('/api/auth/logout')
    .post(async (req, res) => {
      const sessionToken = sessionTokenOf(req);
      if (sessionToken === undefined) throw unauthenticated();
      try {
        await clients.identity.logOut({ sessionToken });
      } catch (error) {
        // A cookie identity does not know is dead either way: let the browser forget it.
        if (error instanceof AppError && error.kind === 'unauthenticated') {
          clearSessionCookie(res);
          await revokeEverywhere(sessionToken);
        }
        throw error;
      }
      await revokeEverywhere(sessionToken);
      clearSessionCookie(res);
      sendPrivate(res, { success: true });
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/auth/password-reset')
    .post(parseJson, trimEmail, validator.body(PasswordResetRequest), async (req, res) => {
      await clients.identity.requestPasswordReset({
        email: (req.body as Static<typeof PasswordResetRequest>).email,
        clientAddress: clientAddress(req),
      });
      res.status(202);
      sendPrivate(res, { success: true });
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/auth/password-reset/confirm')
    .post(parseJson, validator.body(PasswordResetConfirmRequest), async (req, res) => {
      const { token, password } = req.body as Static<typeof PasswordResetConfirmRequest>;
      await resetPassword(context, token, password, clientAddress(req));
      sendPrivate(res, { success: true });
    })
    .all(methodNotAllowed('POST'));

  // The busiest session read, answered ahead of Express (kit/direct-routes.ts). Profile and points
  // are read at the same time, each from the component that owns it; a session resolved by this
  // very request brought its profile along, so it is not read twice. A cookie that names no
  // session is cleared, as on every other route.
  direct.add(app, {
    path: '/api/auth/me',
    async answer(request) {
      const token = sessionTokenOf(request);
      const session = token === undefined ? undefined : await resolveSessionToken(token, context);
      if (!session) {
        const refused = errorAnswer(unauthenticated(), logger, '/api/auth/me');
        return token === undefined
          ? refused
          : { ...refused, headers: { ...refused.headers, 'Set-Cookie': CLEARED_SESSION_COOKIE } };
      }
      const customer = session.userId;
      const [{ profile }, { account }] = await Promise.all([
        session.profile ? { profile: session.profile } : clients.identity.getProfile({}, { customer }),
        clients.loyalty.getAccount({}, { customer }),
      ]);
      return {
        status: 200,
        headers: PRIVATE_JSON,
        body: Buffer.from(JSON.stringify(authSuccess(profile!, loyaltyView(account)))),
      };
    },
  });

  app
    .route('/api/state/sync')
    // The session comes first: without one the answer is 401 whatever the body says. Both
    // halves are validated before either is written.
    .post(sessionRequired, parseJson, validator.body(StateSyncRequest), async (req, res) => {
      const { userId: customer } = await requireSession(req, res, context);
      const body = (req.body ?? {}) as Static<typeof StateSyncRequest>;
      const edit = profileEdit(body.profile);
      // Profile first: identity may still refuse a value, and then nothing has been redeemed.
      if (edit) await clients.identity.updateProfile(edit, { customer });
      const rewardIds = requestedRewardIds(body.loyalty);
      if (rewardIds.length > 0) await clients.loyalty.sync({ requestedRewardIds: rewardIds }, { customer });
      sendPrivate(res, { success: true });
    })
    .all(methodNotAllowed('POST'));

  /**
   * Makes every replica's session cache forget the session. Identity has already deleted it, so
   * if the message cannot be sent the other replicas stop trusting it within their cache TTL.
   */
  async function revokeEverywhere(sessionToken: string): Promise<void> {
    try {
      await revocations.publish(sessionKey(sessionToken));
    } catch (error) {
      logger.warn({ err: error }, 'broadcasting a session revocation failed');
    }
  }

  /**
   * Deletes the session identity started for a login that is not answered 200. Its token never left the
   * gateway; if identity cannot delete it now, it is unusable and expires with its lifetime.
   */
  async function discardSession(sessionToken: string): Promise<void> {
    try {
      await clients.identity.logOut({ sessionToken });
    } catch (error) {
      logger.warn({ err: error }, 'discarding the session of a failed login failed');
    }
  }

  /**
   * The new account's loyalty, welcome bonus included. The account already exists when this
   * runs, so a loyalty failure must not fail the signup: GetAccount is tried once more (it
   * opens the account too), and if loyalty is still down the answer shows the bonus the
   * account is owed, which the ledger grants when the account is next read
   * (docs/decisions/0103, 0763).
   */
  async function welcomeLoyalty(customer: string, createdAt: string): Promise<LoyaltyView> {
    try {
      return loyaltyView((await clients.loyalty.openAccount({}, { customer })).account);
    } catch (error) {
      logger.warn({ err: error }, 'opening the loyalty account at signup failed; retrying as a read');
    }
    try {
      return loyaltyView((await clients.loyalty.getAccount({}, { customer })).account);
    } catch (error) {
      logger.warn({ err: error }, 'loyalty unavailable at signup; answering with the welcome bonus owed');
      return owedWelcomeLoyalty(createdAt);
    }
  }
}

/**
 * Login's error rule: a request body that cannot be credentials (refused by the parser, or
 * invalid against LoginRequest, here or in identity) is the 401 a wrong password gets, with a
 * detail naming what is wrong. Other failures (429, 503, ...) pass unchanged.
 */
const refusedCredentials: ErrorRequestHandler = (error: unknown, _req, _res, next) => next(asFailedLogin(error));

function asFailedLogin(error: unknown): unknown {
  const problem =
    bodyRefusal(error)?.detail ??
    (error instanceof AppError && error.kind === 'invalid_argument' ? error.detail : undefined);
  return problem === undefined ? error : unauthenticated(problem, 'invalid_credentials');
}

/** Browsers and autofill add stray spaces around emails; identity compares them trimmed anyway. */
const trimEmail: RequestHandler = (req, _res, next) => {
  trimEmailOf(req.body);
  next();
};

function trimEmailOf(body: unknown): void {
  const fields = body as { email?: unknown } | null | undefined;
  if (fields && typeof fields === 'object' && typeof fields.email === 'string') fields.email = fields.email.trim();
}

/**
 * Sets a new password with a reset token; identity has ended the account's sessions, and every
 * replica's session cache forgets them (or stops trusting them within its TTL if the message is lost).
 */
export async function resetPassword(
  context: GatewayContext,
  token: string,
  password: string,
  address: string,
): Promise<void> {
  const { userId } = await context.clients.identity.resetPassword({ token, password, clientAddress: address });
  await context.revocations
    .publish(accountRevocation(userId))
    .catch((error: unknown) =>
      context.logger.warn({ err: error }, "broadcasting the end of an account's sessions failed"),
    );
}

/** Answers that carry personal data or a credential are never stored by caches. */
function sendPrivate(res: Response, body: unknown): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json(body);
}

function authSuccess(profile: identity.Profile, loyaltyState: LoyaltyView) {
  return { success: true, user: { profile: profileView(profile) }, loyalty: loyaltyState };
}

/** The contract's Profile; optional fields appear only when set. */
export function profileView(profile: identity.Profile) {
  return {
    id: profile.id,
    email: profile.email,
    firstName: profile.firstName,
    lastName: profile.lastName,
    ...(profile.phone ? { phone: profile.phone } : {}),
    createdAt: profile.createdAt,
    referralCode: profile.referralCode,
    ...(profile.referredBy ? { referredBy: profile.referredBy } : {}),
  };
}

/**
 * The editable part of a synced profile. Read-only fields a client echoes back (id, email,
 * createdAt, referralCode, referredBy) and unknown ones are ignored (docs/decisions/0102).
 */
function profileEdit(profile: Static<typeof StateSyncRequest>['profile']): identity.UpdateProfileRequest | undefined {
  if (!profile) return undefined;
  const { firstName, lastName, phone } = profile;
  if (firstName === undefined && lastName === undefined && phone === undefined) return undefined;
  return { firstName, lastName, phone };
}
