/**
 * Accounts and sessions: the schemas that validate the request bodies (kit/validator.ts) and are the published
 * description.
 */
import { ACCOUNT_LIMITS, CODE_ALPHABET, REFERRAL_CODE_LENGTH } from '@storefront/formats';
import {
  crossSiteResponse,
  errorResponse,
  jsonBodyRefusals,
  jsonResponse,
  rateLimitedResponse,
  serviceFailures,
  type ApiPart,
} from '../../kit/api-docs';
import { component, Type } from '../../kit/schema';
import { Loyalty, LoyaltySync } from './loyalty';

const sessionCookieSet = {
  'Set-Cookie': {
    description:
      '`svc_sess=<43 characters>; Path=/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax`: a new session of 30 days.',
    schema: Type.String(),
  },
};

const sessionCookieCleared = {
  'Set-Cookie': {
    description: '`svc_sess=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`: the browser forgets the session.',
    schema: Type.String(),
  },
};

const rateLimited = rateLimitedResponse('too many attempts from this address or for this account');

const noSession = errorResponse(
  '`unauthorized`: no valid session (the cookie is missing, unknown, expired or was logged out), whatever the body',
);
const serviceDown = serviceFailures();
const hashingBusy = {
  ...serviceFailures(),
  '503': {
    ...errorResponse(
      'A service behind the gateway is unavailable, or too many sign-ups and logins are waiting for their password check (`service_unavailable` with Retry-After); retry shortly',
    ),
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying, when given',
        schema: Type.Integer({ minimum: 1 }),
      },
    },
  },
};

const profileExample = {
  id: '6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6c4a10',
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phone: '+44 20 7946 0000',
  createdAt: '2026-11-22T12:00:00.000Z',
  referralCode: 'K7M2QX9P',
};

const name = (field: string) =>
  Type.String({
    minLength: 1,
    maxLength: ACCOUNT_LIMITS.nameMaxLength,
    description: `${field}; trimmed, not blank, no control characters`,
  });

export const SignUpRequest = component(
  'SignUpRequest',
  Type.Object(
    {
      email: Type.String({
        format: 'email',
        maxLength: ACCOUNT_LIMITS.emailMaxLength,
        description: 'Trimmed and compared in lower case; must not be registered yet',
      }),
      password: Type.String({
        minLength: ACCOUNT_LIMITS.passwordMinLength,
        maxLength: ACCOUNT_LIMITS.passwordMaxLength,
        description: `${ACCOUNT_LIMITS.passwordMinLength} to ${ACCOUNT_LIMITS.passwordMaxLength} characters; one of the most commonly used passwords is refused with \`password_too_common\``,
      }),
      firstName: name('Given name'),
      lastName: name('Family name'),
      phone: Type.Optional(
        Type.String({
          maxLength: ACCOUNT_LIMITS.phoneMaxLength,
          description: 'Digits, spaces and + ( ) - . with at least 5 digits; empty means none',
        }),
      ),
      referralCode: Type.Optional(
        Type.String({
          maxLength: 32,
          description: "Another customer's referral code (any case); one that names nobody is 400",
        }),
      ),
    },
    {
      additionalProperties: false,
      example: {
        email: 'ada@example.com',
        password: 'plum-tractor-42',
        firstName: 'Ada',
        lastName: 'Lovelace',
        referralCode: 'K7M2QX9P',
      },
    },
  ),
);

export const PasswordResetRequest = component(
  'PasswordResetRequest',
  Type.Object(
    {
      email: Type.String({
        format: 'email',
        maxLength: ACCOUNT_LIMITS.emailMaxLength,
        description: 'Trimmed and compared in lower case',
      }),
    },
    { additionalProperties: false, example: { email: 'ada@example.com' } },
  ),
);

export const PasswordResetConfirmRequest = component(
  'PasswordResetConfirmRequest',
  Type.Object(
    {
      token: Type.String({
        pattern: '^[A-Za-z0-9_-]{43}$',
        description: 'The `token` parameter of the link in the reset mail',
      }),
      password: Type.String({
        minLength: ACCOUNT_LIMITS.passwordMinLength,
        maxLength: ACCOUNT_LIMITS.passwordMaxLength,
        description: `The new password, by the sign-up rules: ${ACCOUNT_LIMITS.passwordMinLength} to ${ACCOUNT_LIMITS.passwordMaxLength} characters, not one of the most commonly used (\`password_too_common\`)`,
      }),
    },
    {
      additionalProperties: false,
      example: { token: 'Yq3W0x9bV2tq7Jc4mN1pR8sK5dF6gH0jL2zX4cV7bN9', password: 'new-plum-tractor-43' },
    },
  ),
);

export const LoginRequest = component(
  'LoginRequest',
  Type.Object(
    {
      email: Type.String({ format: 'email', maxLength: ACCOUNT_LIMITS.emailMaxLength }),
      password: Type.String({ minLength: 1, maxLength: ACCOUNT_LIMITS.passwordMaxLength }),
    },
    { additionalProperties: false, example: { email: 'ada@example.com', password: 'plum-tractor-42' } },
  ),
);

export const Profile = component(
  'Profile',
  Type.Object(
    {
      id: Type.String({ readOnly: true }),
      email: Type.String({ format: 'email', readOnly: true }),
      firstName: Type.String(),
      lastName: Type.String(),
      phone: Type.Optional(Type.String({ description: 'Present when set' })),
      createdAt: Type.String({ format: 'date-time', readOnly: true }),
      referralCode: Type.String({
        pattern: `^[${CODE_ALPHABET}]{${REFERRAL_CODE_LENGTH}}$`,
        readOnly: true,
        description: "The customer's own code to share",
      }),
      referredBy: Type.Optional(
        Type.String({ readOnly: true, description: 'The referral code used at signup, when one was' }),
      ),
    },
    { example: profileExample },
  ),
);

const ProfileUpdate = component(
  'ProfileUpdate',
  Type.Object(
    {
      firstName: Type.Optional(name('Given name')),
      lastName: Type.Optional(name('Family name')),
      phone: Type.Optional(
        Type.String({
          maxLength: ACCOUNT_LIMITS.phoneMaxLength,
          description: 'An empty string removes the phone number',
        }),
      ),
      id: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      createdAt: Type.Optional(Type.String()),
      referralCode: Type.Optional(Type.String()),
      referredBy: Type.Optional(Type.String()),
    },
    {
      description:
        'The profile as a client holds it. Only firstName, lastName and phone change; id, email, createdAt, referralCode and referredBy are immutable and, like unknown fields, ignored.',
      example: { firstName: 'Ada', lastName: 'King', phone: '' },
    },
  ),
);

export const AuthSuccess = component(
  'AuthSuccess',
  Type.Object({
    success: Type.Literal(true),
    user: Type.Object({ profile: Profile }),
    loyalty: Loyalty,
  }),
);

export const StateSyncRequest = component(
  'StateSyncRequest',
  Type.Object(
    { profile: Type.Optional(ProfileUpdate), loyalty: Type.Optional(LoyaltySync) },
    {
      description: 'Both members are optional; other members are ignored.',
      example: { profile: { firstName: 'Ada', lastName: 'King' } },
    },
  ),
);

const SuccessResult = component(
  'SuccessResult',
  Type.Object({ success: Type.Literal(true) }, { example: { success: true } }),
);

export const authArea: ApiPart = {
  tags: [
    {
      name: 'auth',
      description: 'Customer accounts and the `svc_sess` session cookie (30 days, HttpOnly, Secure, SameSite=Lax).',
    },
  ],
  paths: {
    '/api/auth/signup': {
      post: {
        operationId: 'signUp',
        summary: 'Create an account with the 100-point welcome bonus and start a session',
        tags: ['auth'],
        requestBody: { required: true, content: { 'application/json': { schema: SignUpRequest } } },
        responses: {
          '200': {
            ...jsonResponse(
              'Account created; the session cookie is set. Should the loyalty service be unreachable for a moment, `loyalty` shows the welcome ' +
                'bonus the account is owed (100 points, bronze, one `welcome` entry, no rewards listed); the ledger grants it on the next read.',
              AuthSuccess,
            ),
            headers: sessionCookieSet,
          },
          '400': errorResponse(
            'Invalid body, naming the field: email format, password length or commonness, names, phone, unknown referral code, unknown fields; or `malformed_json`',
          ),
          '403': crossSiteResponse,
          '409': errorResponse('The email is already registered (`email_taken`)'),
          ...jsonBodyRefusals,
          '429': rateLimited,
          ...hashingBusy,
        },
      },
    },
    '/api/auth/login': {
      post: {
        operationId: 'logIn',
        summary: 'Start a new session',
        description:
          'Every login issues a new session, and only a 200 answer sets a cookie or leaves a session behind. An unknown email, a wrong ' +
          'password and a request that cannot be credentials (not JSON, too large, a field missing or malformed) all get 401 ' +
          '`invalid_credentials`; the detail names what is wrong with a malformed request. Failed logins are limited per account and per client address.',
        tags: ['auth'],
        requestBody: { required: true, content: { 'application/json': { schema: LoginRequest } } },
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
    },
    '/api/auth/password-reset': {
      post: {
        operationId: 'requestPasswordReset',
        summary: 'Mail a password reset link',
        description:
          'If the email belongs to an account, a link to `/account/reset-password?token=…` is mailed, valid for one hour and usable once. ' +
          'The answer is the same 202, after the same work, whether or not the email has an account, so it tells nobody which emails are registered. ' +
          'Requests are limited per client address and per email.',
        tags: ['auth'],
        requestBody: { required: true, content: { 'application/json': { schema: PasswordResetRequest } } },
        responses: {
          '202': jsonResponse('Accepted: a link is mailed if the email has an account', SuccessResult),
          '400': errorResponse('Invalid body, naming the field, or `malformed_json`'),
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '429': rateLimitedResponse('too many reset requests from this address or for this email'),
          ...serviceDown,
        },
      },
    },
    '/api/auth/password-reset/confirm': {
      post: {
        operationId: 'confirmPasswordReset',
        summary: 'Set a new password with a reset link',
        description:
          'Sets the new password, ends every session of the account (on every replica), and mails a notice that the password changed. ' +
          'The token works once and for one hour; it is then refused with 400 `invalid_reset_token`. No session is started: log in with the new password.',
        tags: ['auth'],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: PasswordResetConfirmRequest } },
        },
        responses: {
          '200': jsonResponse('The password is changed and every session of the account has ended', SuccessResult),
          '400': errorResponse(
            '`invalid_reset_token`: unknown, used or expired; or an invalid body naming the field (password length or commonness), or `malformed_json`',
          ),
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          '429': rateLimitedResponse('too many reset attempts from this address'),
          ...hashingBusy,
        },
      },
    },
    '/api/auth/logout': {
      post: {
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
    },
    '/api/auth/me': {
      get: {
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
    },
    '/api/state/sync': {
      post: {
        operationId: 'syncState',
        summary: 'Save profile edits and loyalty redemption requests',
        description:
          'Only firstName, lastName and phone of the profile change. Loyalty state is sanitised: balances, tier and history are never taken from the client; a listed reward not yet redeemed is a redemption request. ' +
          'The session is checked before the body is read: without one the answer is 401 whatever the body.',
        tags: ['auth'],
        security: [{ sessionCookie: [] }],
        requestBody: { required: false, content: { 'application/json': { schema: StateSyncRequest } } },
        responses: {
          '200': jsonResponse('Saved', SuccessResult),
          '400': errorResponse('Invalid body, naming the field, or `malformed_json`; nothing was saved'),
          '401': noSession,
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          ...serviceDown,
        },
      },
    },
  },
};
