/**
 * The mails identity sends: the verification link, welcome, password reset link, password changed, email changed.
 * Until an address is verified it is sent only the verification link and reset links, which carry nothing the signer
 * chose beyond their first name (docs/decisions/1131).
 */
import { LOYALTY_WELCOME } from '@storefront/formats';
import { composeMail, type Mail } from '@storefront/outbox';
import type { User } from '../stores/users';

/** Loyalty credits these at sign-up (decision 0103); the welcome mail announces them. */
export const WELCOME_POINTS = LOYALTY_WELCOME.points;

const linkTo = (publicBaseUrl: string, pathAndQuery: string) => `${publicBaseUrl.replace(/\/+$/, '')}${pathAndQuery}`;

/** Why a verification link is sent: a new account's address, or the new address of an account. */
export type VerificationPurpose = 'sign-up' | 'email-change';

/**
 * The link that verifies an address. Its only text from the account is the first name, shown as plain text (escaped in
 * the HTML); the link is the shop's own.
 */
export function verificationMail(
  firstName: string,
  to: string,
  token: string,
  linkId: string,
  purpose: VerificationPurpose,
  publicBaseUrl: string,
  validHours: number,
): Mail {
  const why =
    purpose === 'sign-up'
      ? 'an account at Storefront Research Supplies was opened with this email address'
      : 'this email address was given as the new address of an account at Storefront Research Supplies';
  return {
    key: `email-verification:${linkId}`,
    to,
    // The link confirms the address as its owner: staff never read it (decision 1305).
    withholdBody: true,
    ...composeMail({
      subject: 'Confirm your email address',
      blocks: [
        {
          paragraph:
            `Hello ${firstName}, ${why}. If it was you, confirm the address with this link ` +
            `within ${validHours} hours; it works once.`,
        },
        {
          link: {
            label: 'Confirm this address',
            url: linkTo(publicBaseUrl, `/account/verify-email?token=${encodeURIComponent(token)}`),
          },
        },
        { paragraph: 'If it was not you, ignore this mail: nothing more is sent to this address.' },
      ],
    }),
  };
}

/** Sent once the account's first address is verified. */
export function welcomeMail(user: User, publicBaseUrl: string): Mail {
  return {
    key: `welcome:${user.id}`,
    to: user.email,
    ...composeMail({
      subject: 'Welcome to Storefront Research Supplies',
      blocks: [
        { paragraph: `Hello ${user.firstName}, your account is ready.` },
        {
          paragraph:
            `We have added ${WELCOME_POINTS} loyalty points to it as a welcome. Points ` +
            'count towards rewards on later orders.',
        },
        { link: { label: 'Your account', url: linkTo(publicBaseUrl, '/account') } },
      ],
    }),
  };
}

/** `resetId` tells one reset apart from the account's others without carrying the token. */
export function passwordResetMail(
  user: User,
  token: string,
  resetId: string,
  publicBaseUrl: string,
  validMinutes: number,
): Mail {
  return {
    key: `password-reset:${resetId}`,
    to: user.email,
    // The link sets the account's password: staff never read it (decision 1305).
    withholdBody: true,
    ...composeMail({
      subject: 'Reset your password',
      blocks: [
        {
          paragraph:
            `Hello ${user.firstName}, someone asked to reset the password of your account. ` +
            `If it was you, set a new one with this link within ${validMinutes} minutes; it works once.`,
        },
        {
          link: {
            label: 'Set a new password',
            url: linkTo(publicBaseUrl, `/account/reset-password?token=${encodeURIComponent(token)}`),
          },
        },
        { paragraph: 'If you did not ask, ignore this mail: your password stays as it is.' },
      ],
    }),
  };
}

/** How a password was changed: with a reset link (every session ended) or by its owner signed in (the others ended). */
export type PasswordChange = 'reset' | 'signed-in';

export function passwordChangedMail(user: User, changedAt: number, publicBaseUrl: string, how: PasswordChange): Mail {
  const what =
    how === 'reset'
      ? 'with a reset link, and every session was logged out'
      : 'by someone signed in to it, and every other session was logged out';
  return {
    key: `password-changed:${user.id}:${changedAt}`,
    to: user.email,
    ...composeMail({
      subject: 'Your password was changed',
      blocks: [
        {
          paragraph:
            `Hello ${user.firstName}, the password of your account was changed on ` +
            `${new Date(changedAt).toUTCString()} ${what}.`,
        },
        { paragraph: 'If this was not you, reset your password again at once and tell us.' },
        { link: { label: 'Forgot password', url: linkTo(publicBaseUrl, '/account/forgot-password') } },
      ],
    }),
  };
}

/** Told to the old address once a new one is verified: mail no longer goes there. */
export function emailChangedMail(user: User, changedAt: number, publicBaseUrl: string): Mail {
  return {
    key: `email-changed:${user.id}:${changedAt}`,
    to: user.email,
    ...composeMail({
      subject: 'Your email address was changed',
      blocks: [
        {
          paragraph:
            `Hello ${user.firstName}, the email address of your account was changed on ` +
            `${new Date(changedAt).toUTCString()}. ` +
            'The shop no longer writes to this address, and it no longer logs in.',
        },
        { paragraph: 'If this was not you, tell us at once by replying to this mail.' },
        { link: { label: 'Your account', url: linkTo(publicBaseUrl, '/account') } },
      ],
    }),
  };
}
