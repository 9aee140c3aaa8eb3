/**
 * What the account routes and pages take and answer: sign-up, log-in, password reset and state sync bodies, the
 * AuthSuccess answer, and the answers these operations document.
 */
import { ACCOUNT_LIMITS, CATALOG_ID_MAX_LENGTH, LOYALTY_TIERS } from '@storefront/formats';
import { errorResponse, rateLimitedResponse, serviceFailures } from '../kit/api-docs';
import { component, StringEnum, Type, type TSchema } from '../kit/schema';
import { Loyalty } from '../application/loyalty';
import { personName, Profile, ProfileUpdate } from '../application/profile';

export const sessionCookieSet = {
  'Set-Cookie': {
    description:
      '`svc_sess=<43 characters>; Path=/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax`: a new session of 30 days.',
    schema: Type.String(),
  },
};

export const sessionCookieCleared = {
  'Set-Cookie': {
    description: '`svc_sess=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`: the browser forgets the session.',
    schema: Type.String(),
  },
};

export const rateLimited = rateLimitedResponse('too many attempts from this address or for this account');

export const noSession = errorResponse(
  '`unauthorized`: no valid session (the cookie is missing, unknown, expired or was logged out), whatever the body',
);
export const serviceDown = serviceFailures();
export const hashingBusy = {
  ...serviceFailures(),
  '503': {
    ...errorResponse(
      'A service behind the gateway is unavailable, or too many sign-ups and logins are waiting for ' +
        'their password check (`service_unavailable` with Retry-After); retry shortly',
    ),
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying, when given',
        schema: Type.Integer({ minimum: 1 }),
      },
    },
  },
};

// Client copies of loyalty state are bounded like the server's own lists (newest 100).
const MAX_LIST = 100;

/** A client's copy of a list: elements are objects whose known members must have the right type. */
const clientList = (properties: Record<string, TSchema>) =>
  Type.Array(
    Type.Object(Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)]))),
    {
      maxItems: MAX_LIST,
    },
  );

const text = () => Type.String();

const LoyaltySync = component(
  'LoyaltySync',
  Type.Object(
    {
      points: Type.Optional(Type.Integer({ minimum: 0 })),
      lifetimePoints: Type.Optional(Type.Integer({ minimum: 0 })),
      tier: Type.Optional(StringEnum(LOYALTY_TIERS)),
      pointsHistory: Type.Optional(
        clientList({
          id: text(),
          type: text(),
          points: Type.Integer(),
          description: text(),
          createdAt: text(),
          orderId: text(),
        }),
      ),
      availableRewards: Type.Optional(
        clientList({
          id: text(),
          name: text(),
          pointsCost: Type.Integer({ minimum: 0 }),
          discount: Type.Number({ minimum: 0, maximum: 1 }),
        }),
      ),
      redeemedRewards: Type.Optional(
        clientList({
          id: text(),
          rewardId: Type.String({
            minLength: 1,
            maxLength: CATALOG_ID_MAX_LENGTH,
            pattern: '^[\\x21-\\x7e]+$',
            description: 'A reward id from availableRewards',
          }),
          name: text(),
          code: text(),
          redeemedAt: text(),
          usedAt: text(),
        }),
      ),
    },
    {
      description:
        'Loyalty state as a client holds it. The server keeps its own balances, tier, history and reward lists and ' +
        "ignores the client's. The one intent honoured: a `redeemedRewards` entry without a `code` whose " +
        '`rewardId` names an available reward asks to redeem it; it is granted when the balance covers the cost ' +
        'and the account holds no unused code for that reward. Known members must have the types shown (else 400); ' +
        'unknown members are dropped.',
      example: { redeemedRewards: [{ rewardId: 'ten-percent-off' }] },
    },
  ),
);

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
        description:
          `${ACCOUNT_LIMITS.passwordMinLength} to ${ACCOUNT_LIMITS.passwordMaxLength} ` +
          `characters; one of the most commonly used passwords is refused with \`password_too_common\``,
      }),
      firstName: personName('Given name'),
      lastName: personName('Family name'),
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
      marketingConsent: Type.Optional(
        Type.Boolean({
          description:
            'Marketing mails wanted (default false, an unticked box): recorded with the version of its wording and ' +
            'the time, apart from the account itself',
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
        description:
          `The new password, by the sign-up rules: ${ACCOUNT_LIMITS.passwordMinLength} to ` +
          `${ACCOUNT_LIMITS.passwordMaxLength} characters, not one of the most commonly used (\`password_too_common\`)`,
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

export const SuccessResult = component(
  'SuccessResult',
  Type.Object({ success: Type.Literal(true) }, { example: { success: true } }),
);

const currentPassword = () =>
  Type.String({
    minLength: 1,
    maxLength: ACCOUNT_LIMITS.passwordMaxLength,
    description: 'The password the account has now; a wrong one is 400 `invalid_current_password`',
  });

export const VerifyEmailRequest = component(
  'VerifyEmailRequest',
  Type.Object(
    {
      token: Type.String({
        pattern: '^[A-Za-z0-9_-]{43}$',
        description: 'The `token` parameter of the link in the verification mail',
      }),
    },
    { additionalProperties: false, example: { token: 'Vb3W0x9bV2tq7Jc4mN1pR8sK5dF6gH0jL2zX4cV7bN9' } },
  ),
);

export const PasswordChangeRequest = component(
  'PasswordChangeRequest',
  Type.Object(
    {
      currentPassword: currentPassword(),
      newPassword: Type.String({
        minLength: ACCOUNT_LIMITS.passwordMinLength,
        maxLength: ACCOUNT_LIMITS.passwordMaxLength,
        description:
          `By the sign-up rules: ${ACCOUNT_LIMITS.passwordMinLength} to ` +
          `${ACCOUNT_LIMITS.passwordMaxLength} characters, not one of the most commonly used (\`password_too_common\`)`,
      }),
    },
    {
      additionalProperties: false,
      example: { currentPassword: 'plum-tractor-42', newPassword: 'quiet-lantern-58' },
    },
  ),
);

/** The words a customer types to confirm closing the account, a second time after the password. */
export const CLOSE_ACCOUNT_WORDS = 'close my account';

export const CloseAccountRequest = component(
  'CloseAccountRequest',
  Type.Object(
    {
      currentPassword: currentPassword(),
      confirm: Type.Literal(CLOSE_ACCOUNT_WORDS, {
        description:
          `Exactly \`${CLOSE_ACCOUNT_WORDS}\`: ` +
          'the second confirmation that the account is to be closed and erased',
      }),
    },
    { additionalProperties: false, example: { currentPassword: 'plum-tractor-42', confirm: CLOSE_ACCOUNT_WORDS } },
  ),
);

export const EmailChangeRequest = component(
  'EmailChangeRequest',
  Type.Object(
    {
      currentPassword: currentPassword(),
      email: Type.String({
        format: 'email',
        maxLength: ACCOUNT_LIMITS.emailMaxLength,
        description: 'The new address; trimmed and compared in lower case',
      }),
    },
    { additionalProperties: false, example: { currentPassword: 'plum-tractor-42', email: 'ada.king@example.com' } },
  ),
);

export const EmailChangeAccepted = component(
  'EmailChangeAccepted',
  Type.Object(
    {
      success: Type.Literal(true),
      user: Type.Object({ profile: Profile }, { description: 'The profile, with the new address as `pendingEmail`' }),
    },
    { additionalProperties: false },
  ),
);
