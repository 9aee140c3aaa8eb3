/**
 * `/account`: sign up, log in and log out with the same `svc_sess` session as the API; the profile (editable), loyalty
 * and the account's orders. Each form is checked against the API's schemas and runs the same workflows
 * (application/accounts.ts).
 */
import type { Request, Response } from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import { LOYALTY_WELCOME, isCatalogId } from '@storefront/formats';
import type { checkout, identity, loyalty } from '@storefront/proto';
import {
  clearSessionCookie,
  clientAddress,
  sessionOf,
  sessionTokenOf,
  setSessionCookie,
} from '../kit/customer-session';
import type { GatewayContext } from '../context';
import {
  accountOverview,
  changePassword,
  endSession,
  requestEmailChange,
  resetPassword,
  redeemReward,
  saveCustomerState,
  signUp,
  verifyEmail,
} from '../application/accounts';
import { profileEdit } from '../application/profile';
import {
  EmailChangeRequest,
  LoginRequest,
  PasswordChangeRequest,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  SignUpRequest,
  StateSyncRequest,
  VerifyEmailRequest,
} from './schemas';
import {
  REDEEM_REWARD_PATH,
  REFERRAL_LINK_CODE,
  referralPath,
  referralSection,
  rewardsSection,
  tierSection,
} from './loyalty-sections';
import { dataRightsSection, MARKETING_CONSENT_BOX } from './data-rights-pages';
import { field, formError, inFormWords, isFormRefusal } from '../kit/forms';
import { html, prose, type Html } from '../kit/html';
import { headCell, numHeadCell, tableHead } from '../kit/table';
import { dispatchWords, orderStatusWords } from '../application/order-words';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { formatPence } from '../kit/money';

interface TextField {
  name: string;
  /** The input's id, when two forms of a page share a field name. */
  id?: string;
  label: string;
  type: 'text' | 'email' | 'password' | 'tel';
  autocomplete: string;
  required: boolean;
}

const FIRST_NAME: TextField = {
  name: 'firstName',
  label: 'First name',
  type: 'text',
  autocomplete: 'given-name',
  required: true,
};
const LAST_NAME: TextField = {
  name: 'lastName',
  label: 'Last name',
  type: 'text',
  autocomplete: 'family-name',
  required: true,
};
const PHONE: TextField = { name: 'phone', label: 'Phone', type: 'tel', autocomplete: 'tel', required: false };
const EMAIL: TextField = { name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true };
const NEW_PASSWORD: TextField = {
  name: 'password',
  label: 'Password',
  type: 'password',
  autocomplete: 'new-password',
  required: true,
};
const PASSWORD: TextField = { ...NEW_PASSWORD, autocomplete: 'current-password' };
const RESET_PASSWORD: TextField = { ...NEW_PASSWORD, label: 'New password' };
const CURRENT_PASSWORD: TextField = { ...PASSWORD, name: 'currentPassword', label: 'Current password' };
const CHANGED_PASSWORD: TextField = { ...NEW_PASSWORD, name: 'newPassword', label: 'New password' };
const NEW_EMAIL: TextField = { ...EMAIL, label: 'New email address' };
const PASSWORD_FOR_EMAIL: TextField = {
  ...CURRENT_PASSWORD,
  id: 'email-current-password',
  label: 'Current password, to change the email',
};

const REFERRAL_CODE: TextField = {
  name: 'referralCode',
  label: 'Referral code (optional)',
  type: 'text',
  autocomplete: 'off',
  required: false,
};
const SIGN_UP_FIELDS = [FIRST_NAME, LAST_NAME, EMAIL, NEW_PASSWORD, PHONE, REFERRAL_CODE];
const LOG_IN_FIELDS = [EMAIL, PASSWORD];
const FORGOT_FIELDS = [EMAIL];
const RESET_FIELDS = [RESET_PASSWORD];
const PROFILE_FIELDS = [FIRST_NAME, LAST_NAME, PHONE];
const PASSWORD_CHANGE_FIELDS = [CURRENT_PASSWORD, CHANGED_PASSWORD];
const EMAIL_CHANGE_FIELDS = [NEW_EMAIL, PASSWORD_FOR_EMAIL];

const labelsOf = (fields: TextField[], prefix = '') =>
  Object.fromEntries(fields.map((entry) => [`${prefix}${entry.name}`, entry.label]));

type Values = Record<string, string>;

/** A labelled field, with the value typed before; a password is never written back into the page. */
function textField(entry: TextField, values: Values): Html {
  const id = entry.id ?? entry.name;
  const value = entry.type === 'password' ? '' : (values[entry.name] ?? '');
  const required = entry.required ? html` required` : '';
  const { type, name, autocomplete } = entry;
  return html`<label for="${id}">${entry.label}</label>
<input type="${type}" id="${id}" name="${name}" autocomplete="${autocomplete}" value="${value}"${required}>`;
}

/**
 * A form of labelled fields; a password is never written back into the page. `hidden` fields travel unseen (a reset
 * token).
 */
function fieldsForm(
  action: string,
  fields: TextField[],
  values: Values,
  button: string,
  hidden: Values = {},
  extra: Html | '' = '',
): Html {
  return html`<form method="post" action="${action}">
${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${fields.map((entry) => textField(entry, values))}
${extra}<button type="submit">${button}</button>
</form>`;
}

function accountPage(title: string, main: Html, status = 200): PageAnswer {
  return { title, description: title, caching: 'private', status, main };
}

const LOG_IN_ANCHOR = html`<a href="/account/login">Log in</a>`;
const SIGN_UP_ANCHOR = html`<a href="/account/signup">Sign up</a>`;
const LOG_IN_LINK = html`<p>${LOG_IN_ANCHOR}</p>`;
const FORGOT_PASSWORD_LINK = html`<p><a href="/account/forgot-password">Forgot password</a></p>`;

export function signUpPage(values: Values = {}, error?: string, status = 200): PageAnswer {
  const form = fieldsForm('/account/signup', SIGN_UP_FIELDS, values, 'Sign up', {}, MARKETING_CONSENT_BOX);
  return accountPage(
    'Sign up',
    html`<h1>Sign up</h1>${formError(error)}<p>${prose(
      html`An account keeps your orders together and earns loyalty points:`,
      html`${LOYALTY_WELCOME.points} to start.`,
    )}</p>
${form}<p>Already have an account? ${LOG_IN_ANCHOR}</p>`,
    status,
  );
}

export function logInPage(values: Values = {}, error?: string, status = 200): PageAnswer {
  const form = fieldsForm('/account/login', LOG_IN_FIELDS, values, 'Log in');
  return accountPage(
    'Log in',
    html`<h1>Log in</h1>${formError(error)}${form}${FORGOT_PASSWORD_LINK}<p>New here? ${SIGN_UP_ANCHOR}</p>`,
    status,
  );
}

export function forgotPasswordPage(values: Values = {}, error?: string, status = 200): PageAnswer {
  return accountPage(
    'Forgot password',
    html`<h1>Forgot password</h1>${formError(error)}<p>${prose(
      html`Give the email of your account and we will mail you a link to set a new password.`,
      html`The link works once, for one hour.`,
    )}</p>
${fieldsForm('/account/forgot-password', FORGOT_FIELDS, values, 'Send reset link')}`,
    status,
  );
}

/** The same page whether or not the email has an account (decision 0952). */
function resetLinkSentPage(): PageAnswer {
  return accountPage(
    'Check your email',
    html`<h1>Check your email</h1><p role="status">${prose(
      html`If an account uses that email, a link to set a new password is on its way.`,
      html`It works once, for one hour.`,
    )}</p>${LOG_IN_LINK}`,
  );
}

export function resetPasswordPage(token: string, error?: string, status = 200): PageAnswer {
  const form = fieldsForm('/account/reset-password', RESET_FIELDS, {}, 'Set password', { token });
  return accountPage(
    'Set a new password',
    html`<h1>Set a new password</h1>${formError(error)}${form}
${FORGOT_PASSWORD_LINK}`,
    status,
  );
}

function passwordChangedPage(): PageAnswer {
  return accountPage(
    'Password changed',
    html`<h1>Password changed</h1><p role="status">${prose(
      html`Your new password is set`,
      html`and every session of your account has been logged out.`,
    )}</p>${LOG_IN_LINK}`,
  );
}

/** What a verification link opens: a button, so that a link preview opening the URL does not use the link. */
export function verifyEmailPage(token: string, error?: string, status = 200): PageAnswer {
  return accountPage(
    'Confirm your email address',
    html`<h1>Confirm your email address</h1>${formError(error)}<p>${prose(
      html`Confirm that this address is yours:`,
      html`the shop writes to it from then on.`,
    )}</p>
${fieldsForm('/account/verify-email', [], {}, 'Confirm this address', { token })}`,
    status,
  );
}

function emailVerifiedPage(): PageAnswer {
  return accountPage(
    'Email address confirmed',
    html`<h1>Email address confirmed</h1><p role="status">${prose(
      html`Thank you: the address is confirmed`,
      html`and is the one your account uses.`,
    )}</p><p><a href="/account">Your account</a></p>`,
  );
}

const LOG_OUT_FORM = html`<form method="post" action="/account/logout"><button type="submit">Log out</button></form>`;
const SIGN_IN_LINKS = html`<ul><li>${LOG_IN_ANCHOR}</li><li>${SIGN_UP_ANCHOR}</li></ul>`;

function signedOutPage(): PageAnswer {
  return accountPage(
    'Account',
    html`<h1>Account</h1><p>Sign in to see your orders, loyalty points and rewards.</p>${SIGN_IN_LINKS}`,
  );
}

/** What the account page confirms after a form was saved. */
const SAVED_WORDS = {
  profile: 'Profile saved.',
  password: 'Password changed. Every other session of your account has been logged out.',
  email: 'A link is on its way to the new address: it becomes your email once you follow it.',
  reward: 'Reward redeemed: its code is listed under Your reward codes.',
  marketing: 'Your choice is saved.',
} as const;

type SavedForm = keyof typeof SAVED_WORDS;

interface AccountView {
  profile: identity.Profile;
  account: loyalty.Account;
  referrals: loyalty.ListReferralsResponse;
  orders: checkout.OrderDetails[];
  wantsMarketing: boolean;
  saved?: SavedForm;
  /** The form refused, with its message; the profile form's values come back in `values`. */
  refused?: { form: SavedForm; error: string };
  values?: Values;
}

const HISTORY_HEAD = tableHead(headCell('Date'), headCell('What'), numHeadCell('Points'));
const ORDERS_HEAD = tableHead(headCell('Order'), headCell('Placed'), numHeadCell('Total'), headCell('Status'));

export function accountOverviewPage(
  { profile, account, referrals, orders, wantsMarketing, saved, refused, values }: AccountView,
  shareUrl: string,
  status = 200,
): PageAnswer {
  /** The confirmation or refusal of one form, beside it. */
  const outcome = (form: SavedForm) => {
    const confirmation = saved === form ? html`<p class="ok" role="status">${SAVED_WORDS[form]}</p>` : '';
    return html`${formError(refused?.form === form ? refused.error : undefined)}${confirmation}`;
  };
  const current = values ?? { firstName: profile.firstName, lastName: profile.lastName, phone: profile.phone ?? '' };
  const history = account.pointsHistory.map((entry) => {
    const signed = entry.points > 0 ? `+${entry.points}` : entry.points;
    const date = entry.createdAt.slice(0, 10);
    return html`<tr><td>${date}</td><td>${entry.description}</td><td class="num">${signed}</td></tr>`;
  });
  const orderRows = orders.map((details) => {
    const order = details.summary!;
    const link = html`<a href="/orders/${encodeURIComponent(order.reference)}">${order.orderNumber}</a>`;
    const placed = details.createdAt.slice(0, 10);
    const total = formatPence(order.totalPence);
    const status = html`${orderStatusWords(order)}${details.dispatch ? html`<br>${dispatchWords(details)}` : ''}`;
    return html`<tr><th scope="row">${link}</th><td>${placed}</td><td class="num">${total}</td><td>${status}</td></tr>`;
  });
  const loyalty = [
    html`<dt>Points</dt><dd>${account.points}</dd>`,
    html`<dt>Lifetime points</dt><dd>${account.lifetimePoints}</dd>`,
    html`<dt>Tier</dt><dd>${account.tier}</dd>`,
  ];
  return accountPage(
    'Your account',
    html`<h1>Your account</h1>
<p>Signed in as ${profile.email}. <a href="/account/logout">Log out</a></p>
<h2>Loyalty</h2>
<dl>${loyalty}</dl>
${tierSection(account)}
${rewardsSection(account, outcome('reward'))}
<h3>Points history</h3>
<table><caption class="vh">Points history</caption>${HISTORY_HEAD}<tbody>${history}</tbody></table>
${referralSection(profile.referralCode, shareUrl, referrals)}
<h2>Orders</h2>
${
  orderRows.length > 0
    ? html`<table><caption class="vh">Your orders</caption>${ORDERS_HEAD}<tbody>${orderRows}</tbody></table>`
    : html`<p>No orders yet.</p>`
}
<h2>Profile</h2>
${outcome('profile')}
${fieldsForm('/account/profile', PROFILE_FIELDS, current, 'Save')}
<h2>Email address</h2>
<p>${profile.email}: ${
      profile.emailVerifiedAt
        ? 'confirmed'
        : 'not confirmed yet; follow the link ' + 'we mailed to it, or give the same address below for a new link'
    }.</p>
${profile.pendingEmail ? html`<p>Changing to ${profile.pendingEmail} once the link mailed there is followed.</p>` : ''}
${outcome('email')}
${fieldsForm('/account/email', EMAIL_CHANGE_FIELDS, {}, 'Change email')}
<h2>Password</h2>
${outcome('password')}
${fieldsForm('/account/password', PASSWORD_CHANGE_FIELDS, {}, 'Change password')}
${dataRightsSection(wantsMarketing, saved === 'marketing')}`,
    status,
  );
}

export function registerAccountPages(pages: PageRoutes, context: GatewayContext): void {
  const { router, form, send } = pages;
  const { clients, validator } = context;

  async function overview(
    req: Request,
    res: Response,
    customer: string,
    extra: Partial<AccountView> = {},
    status = 200,
  ): Promise<void> {
    const view = await accountOverview(context, customer);
    const shareUrl = `${context.config.publicBaseUrl}${referralPath(view.profile.referralCode)}`;
    await send(req, res, accountOverviewPage({ ...view, ...extra }, shareUrl, status));
  }

  router.get('/account', async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return send(req, res, signedOutPage());
    const saved = typeof req.query.saved === 'string' && req.query.saved in SAVED_WORDS ? req.query.saved : undefined;
    await overview(req, res, session.userId, { saved: saved as SavedForm | undefined });
  });

  router.get('/account/signup', (req, res) => {
    const code = typeof req.query.ref === 'string' && REFERRAL_LINK_CODE.test(req.query.ref) ? req.query.ref : '';
    return send(req, res, signUpPage(code ? { referralCode: code.toUpperCase() } : {}));
  });
  // A customer's share link; a code of the wrong shape opens sign-up without one.
  router.get('/r/:code', (req, res) => {
    const code = REFERRAL_LINK_CODE.test(req.params.code) ? `?ref=${req.params.code.toUpperCase()}` : '';
    res.redirect(303, `/account/signup${code}`);
  });
  router.get('/account/login', (req, res) => send(req, res, logInPage()));

  router.post('/account/signup', ...form, async (req, res) => {
    const values = valuesOf(req, SIGN_UP_FIELDS);
    const { firstName = '', lastName = '', email = '', password = '', phone, referralCode } = values;
    const body = {
      firstName,
      lastName,
      email,
      password,
      ...(phone ? { phone } : {}),
      ...(referralCode ? { referralCode } : {}),
      marketingConsent: field(req, 'marketingConsent') === 'yes',
    };
    try {
      validator.check(SignUpRequest, body, 'body');
      const { session } = await signUp(context, { ...body, clientAddress: clientAddress(req) });
      setSessionCookie(res, session);
      res.redirect(303, '/account');
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await send(
        req,
        res,
        signUpPage(values, inFormWords(error.detail, labelsOf(SIGN_UP_FIELDS)), HTTP_STATUS[error.kind]),
      );
    }
  });

  router.post('/account/login', ...form, async (req, res) => {
    const values = valuesOf(req, LOG_IN_FIELDS);
    const { email = '', password = '' } = values;
    try {
      validator.check(LoginRequest, { email, password }, 'body');
      const { session } = await clients.identity.logIn({ email, password, clientAddress: clientAddress(req) });
      setSessionCookie(res, session!);
      res.redirect(303, '/account');
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      // As on POST /api/auth/login, whatever cannot be credentials is a failed login (401).
      const status = error.kind === 'invalid_argument' ? 401 : HTTP_STATUS[error.kind];
      await send(req, res, logInPage(values, inFormWords(error.detail, labelsOf(LOG_IN_FIELDS)), status));
    }
  });

  router.get('/account/forgot-password', (req, res) => send(req, res, forgotPasswordPage()));
  router.post('/account/forgot-password', ...form, async (req, res) => {
    const values = valuesOf(req, FORGOT_FIELDS);
    const { email = '' } = values;
    try {
      validator.check(PasswordResetRequest, { email }, 'body');
      await clients.identity.requestPasswordReset({ email, clientAddress: clientAddress(req) });
      await send(req, res, resetLinkSentPage());
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await send(
        req,
        res,
        forgotPasswordPage(values, inFormWords(error.detail, labelsOf(FORGOT_FIELDS)), HTTP_STATUS[error.kind]),
      );
    }
  });

  registerResetPasswordPages(pages, context);

  router.post('/account/profile', ...form, async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    const values = valuesOf(req, PROFILE_FIELDS);
    try {
      validator.check(StateSyncRequest, { profile: values }, 'body');
      await saveCustomerState(context, session.userId, { profile: profileEdit(values), rewardIds: [] });
      res.redirect(303, '/account?saved=profile');
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await overview(
        req,
        res,
        session.userId,
        {
          values,
          refused: { form: 'profile', error: inFormWords(error.detail, labelsOf(PROFILE_FIELDS, 'profile.')) },
        },
        HTTP_STATUS[error.kind],
      );
    }
  });

  router.post(REDEEM_REWARD_PATH, ...form, async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    const rewardId = field(req, 'reward');
    if (!isCatalogId(rewardId)) {
      const error = 'Choose one of the rewards listed to redeem.';
      return overview(req, res, session.userId, { refused: { form: 'reward', error } }, 400);
    }
    const refusal = await redeemReward(context, session.userId, rewardId);
    if (!refusal) return void res.redirect(303, '/account?saved=reward');
    await overview(req, res, session.userId, { refused: { form: 'reward', error: refusal } }, 409);
  });

  router.post('/account/password', ...form, async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    const { currentPassword = '', newPassword = '' } = valuesOf(req, PASSWORD_CHANGE_FIELDS);
    try {
      validator.check(PasswordChangeRequest, { currentPassword, newPassword }, 'body');
      const renewed = await changePassword(context, session.userId, {
        currentPassword,
        newPassword,
        clientAddress: clientAddress(req),
      });
      setSessionCookie(res, renewed);
      res.redirect(303, '/account?saved=password');
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const words = inFormWords(error.detail, labelsOf(PASSWORD_CHANGE_FIELDS));
      await overview(
        req,
        res,
        session.userId,
        { refused: { form: 'password', error: words } },
        HTTP_STATUS[error.kind],
      );
    }
  });

  router.post('/account/email', ...form, async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    const { email = '', currentPassword = '' } = valuesOf(req, EMAIL_CHANGE_FIELDS);
    try {
      validator.check(EmailChangeRequest, { email, currentPassword }, 'body');
      await requestEmailChange(context, session.userId, {
        currentPassword,
        newEmail: email,
        clientAddress: clientAddress(req),
      });
      res.redirect(303, '/account?saved=email');
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const words = inFormWords(error.detail, labelsOf(EMAIL_CHANGE_FIELDS));
      await overview(req, res, session.userId, { refused: { form: 'email', error: words } }, HTTP_STATUS[error.kind]);
    }
  });

  // A link a browser follows from this site logs out at once (Sec-Fetch-Site: same-origin);
  // from anywhere else it asks first, so a link on another site cannot sign anyone out.
  router.get('/account/logout', async (req, res) => {
    if (req.headers['sec-fetch-site'] === 'same-origin') return logOut(req, res);
    await send(req, res, accountPage('Log out', html`<h1>Log out</h1>${LOG_OUT_FORM}`));
  });
  router.post('/account/logout', ...form, logOut);

  /** Ends the session in identity and on every replica; a session identity no longer knows is gone anyway. */
  async function logOut(req: Request, res: Response): Promise<void> {
    const token = sessionTokenOf(req);
    if (token !== undefined) {
      try {
        await endSession(context, token);
      } catch (error) {
        if (!(error instanceof AppError && error.kind === 'unauthenticated')) throw error;
      }
      clearSessionCookie(res);
    }
    res.redirect(303, '/');
  }
}

function valuesOf(req: Request, fields: TextField[]): Values {
  return Object.fromEntries(
    fields.map((entry) => [
      entry.name,
      entry.type === 'password' ? field(req, entry.name) : field(req, entry.name).trim(),
    ]),
  );
}

/**
 * The pages a reset link and a verification link open, and their forms. They carry live tokens, so the shop serves them
 * itself even when a storefront origin serves every other page: the tokens never reach that origin.
 */
export function registerResetPasswordPages({ router, form, send }: PageRoutes, context: GatewayContext): void {
  const { validator } = context;
  router.get('/account/reset-password', (req, res) =>
    send(req, res, resetPasswordPage(typeof req.query.token === 'string' ? req.query.token : '')),
  );
  router.post('/account/reset-password', ...form, async (req, res) => {
    const token = field(req, 'token');
    const { password = '' } = valuesOf(req, RESET_FIELDS);
    try {
      validator.check(PasswordResetConfirmRequest, { token, password }, 'body');
      await resetPassword(context, { token, password, clientAddress: clientAddress(req) });
      // This browser's session, if any, has ended with the others.
      if (sessionTokenOf(req) !== undefined) clearSessionCookie(res);
      await send(req, res, passwordChangedPage());
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const words = error.detail.startsWith('token ')
        ? 'The reset link is invalid; ask for a new one.'
        : inFormWords(error.detail, labelsOf(RESET_FIELDS));
      await send(req, res, resetPasswordPage(token, words, HTTP_STATUS[error.kind]));
    }
  });

  router.get('/account/verify-email', (req, res) =>
    send(req, res, verifyEmailPage(typeof req.query.token === 'string' ? req.query.token : '')),
  );
  router.post('/account/verify-email', ...form, async (req, res) => {
    const token = field(req, 'token');
    try {
      validator.check(VerifyEmailRequest, { token }, 'body');
      await verifyEmail(context, token);
      await send(req, res, emailVerifiedPage());
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const words =
        error.kind === 'conflict'
          ? 'Another account uses this address now; log in and give another one.'
          : 'The link is invalid, was used already or has expired.';
      await send(req, res, verifyEmailPage(token, words, HTTP_STATUS[error.kind]));
    }
  });
}
