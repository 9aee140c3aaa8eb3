/** The mails identity sends: welcome, password reset link, password changed. */
import { LOYALTY_WELCOME } from '@storefront/formats';
import { composeMail, type Mail } from '@storefront/outbox';
import type { User } from '../stores/users';

/** Loyalty credits these at sign-up (decision 0103); the welcome mail announces them. */
export const WELCOME_POINTS = LOYALTY_WELCOME.points;

const linkTo = (publicBaseUrl: string, pathAndQuery: string) => `${publicBaseUrl.replace(/\/+$/, '')}${pathAndQuery}`;

export function welcomeMail(user: User, publicBaseUrl: string): Mail {
  return {
    key: `welcome:${user.id}`,
    to: user.email,
    ...composeMail({
      subject: 'Welcome to Storefront Research Supplies',
      blocks: [
        { paragraph: `Hello ${user.firstName}, your account is ready.` },
        {
          paragraph: `We have added ${WELCOME_POINTS} loyalty points to it as a welcome. Points count towards rewards on later orders.`,
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
    ...composeMail({
      subject: 'Reset your password',
      blocks: [
        {
          paragraph: `Hello ${user.firstName}, someone asked to reset the password of your account. If it was you, set a new one with this link within ${validMinutes} minutes; it works once.`,
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

export function passwordChangedMail(user: User, changedAt: number, publicBaseUrl: string): Mail {
  return {
    key: `password-changed:${user.id}:${changedAt}`,
    to: user.email,
    ...composeMail({
      subject: 'Your password was changed',
      blocks: [
        {
          paragraph: `Hello ${user.firstName}, the password of your account was changed on ${new Date(changedAt).toUTCString()} with a reset link, and every session was logged out.`,
        },
        { paragraph: 'If this was not you, reset your password again at once and tell us.' },
        { link: { label: 'Forgot password', url: linkTo(publicBaseUrl, '/account/forgot-password') } },
      ],
    }),
  };
}
