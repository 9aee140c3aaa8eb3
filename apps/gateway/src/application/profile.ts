/**
 * A customer's profile as the public API shows it and as a customer edits it. The editable fields are written here
 * once: the profile a client may send back (ProfileUpdate), and the part of it identity is asked to change.
 */
import { ACCOUNT_LIMITS, CODE_ALPHABET, REFERRAL_CODE_LENGTH } from '@storefront/formats';
import type { identity } from '@storefront/proto';
import { component, PlainText, Type, type Static } from '../kit/schema';

const profileExample = {
  id: '6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6c4a10',
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phone: '+44 20 7946 0000',
  createdAt: '2026-11-22T12:00:00.000Z',
  referralCode: 'K7M2QX9P',
  emailVerifiedAt: '2026-11-22T12:05:00.000Z',
};

/** A name as sign-up and a profile edit take it. */
export const personName = (field: string) =>
  PlainText({
    minLength: 1,
    maxLength: ACCOUNT_LIMITS.nameMaxLength,
    description: `${field}; trimmed, not blank, no control characters`,
  });

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
      emailVerifiedAt: Type.Optional(
        Type.String({
          format: 'date-time',
          readOnly: true,
          description:
            'When `email` was verified by the link mailed to it; absent until then. Until it is, the ' +
            'address is sent that link and nothing else of the account.',
        }),
      ),
      pendingEmail: Type.Optional(
        Type.String({
          readOnly: true,
          description: 'A new email asked for (POST /api/auth/email): it replaces `email` once its link is used',
        }),
      ),
    },
    { example: profileExample },
  ),
);

/** The fields a customer changes. */
const EDITABLE = {
  firstName: Type.Optional(personName('Given name')),
  lastName: Type.Optional(personName('Family name')),
  phone: Type.Optional(
    Type.String({ maxLength: ACCOUNT_LIMITS.phoneMaxLength, description: 'An empty string removes the phone number' }),
  ),
};

/** The editable fields in words, for the documentation: "firstName, lastName and phone". */
export const EDITABLE_PROFILE_FIELDS = Object.keys(EDITABLE)
  .join(', ')
  .replace(/, ([^,]+)$/, ' and $1');

export const ProfileUpdate = component(
  'ProfileUpdate',
  Type.Object(
    {
      ...EDITABLE,
      id: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      createdAt: Type.Optional(Type.String()),
      referralCode: Type.Optional(Type.String()),
      referredBy: Type.Optional(Type.String()),
      emailVerifiedAt: Type.Optional(Type.String()),
      pendingEmail: Type.Optional(Type.String()),
    },
    {
      description:
        `The profile as a client holds it. Only ${EDITABLE_PROFILE_FIELDS} change here; id, createdAt, referralCode, ` +
        'referredBy, emailVerifiedAt and pendingEmail are immutable and, like unknown fields, ' +
        'ignored; email changes with POST /api/auth/email.',
      example: { firstName: 'Ada', lastName: 'King', phone: '' },
    },
  ),
);

/** The contract's Profile; optional fields appear only when set. */
export function profileView(profile: identity.Profile): Static<typeof Profile> {
  return {
    id: profile.id,
    email: profile.email,
    firstName: profile.firstName,
    lastName: profile.lastName,
    ...(profile.phone ? { phone: profile.phone } : {}),
    createdAt: profile.createdAt,
    referralCode: profile.referralCode,
    ...(profile.referredBy ? { referredBy: profile.referredBy } : {}),
    ...(profile.emailVerifiedAt ? { emailVerifiedAt: profile.emailVerifiedAt } : {}),
    ...(profile.pendingEmail ? { pendingEmail: profile.pendingEmail } : {}),
  };
}

/**
 * The change identity is asked for: the editable fields the client sent. Read-only fields a client echoes back (id,
 * email, createdAt, referralCode, referredBy) and unknown ones are ignored (docs/decisions/0102); undefined when
 * nothing editable was sent.
 */
export function profileEdit(
  profile: Static<typeof ProfileUpdate> | undefined,
): identity.UpdateProfileRequest | undefined {
  if (!profile) return undefined;
  const edit = Object.fromEntries(
    Object.keys(EDITABLE).map((field) => [field, profile[field as keyof typeof EDITABLE]]),
  );
  return Object.values(edit).some((value) => value !== undefined) ? edit : undefined;
}
