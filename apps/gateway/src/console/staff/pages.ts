/**
 * The console's staff sign-in: log in with password and a TOTP code (or a recovery code), set an account up from a
 * one-time link (its secret shown only to the first browser that opened it), log out; and, for an
 * owner, re-enabling a disabled member with a new set-up link.
 */
import type { Request, Response } from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import { clientAddress } from '../../kit/customer-session';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, prose } from '../../kit/html';
import type { PageAnswer } from '../../kit/respond';
import { CONSOLE_PATH, clearStaffCookie, setStaffCookie, staffTokenOf } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';
import { dropSetupBinding, keepSetupBinding, qrCodeSvg, setupBindingOf } from './setup-binding';

function logInPage(email = '', error?: string, status = 200): PageAnswer {
  return consolePage(
    'Staff log in',
    html`<h1>Staff log in</h1>${formError(error)}
<form method="post" action="/console/login">
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" value="${email}" required>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<label for="code">Authenticator code or recovery code</label>
<input type="text" id="code" name="code" autocomplete="one-time-code" inputmode="text" required>
<button type="submit">Log in</button>
</form>
<p>Lost your authenticator? Log in with one of your recovery codes instead of the code; each works once.</p>`,
    undefined,
    status,
  );
}

interface SetupView {
  email: string;
  totpSecret: string;
  otpauthUri: string;
}

function setupPage(token: string, view: SetupView, error?: string, status = 200): PageAnswer {
  return consolePage(
    'Set up your staff account',
    html`<h1>Set up your staff account</h1>${formError(error)}
<p>For ${view.email}. This link works once.</p>
<h2>1. Add the console to your authenticator app</h2>
<p>Scan this code with the app:</p>
<figure>${qrCodeSvg(view.otpauthUri)}</figure>
<p>Or enter this secret in the app (time-based, 6 digits, 30 seconds):</p>
<p><code id="totp-secret">${view.totpSecret}</code></p>
<p>Or give the app this address: <code id="otpauth-uri">${view.otpauthUri}</code></p>
<p>Only this browser is shown the secret, for an hour; elsewhere or later, ask an owner for a new link.</p>
<h2>2. Choose a password and confirm with a code</h2>
<form method="post" action="/console/setup/${token}">
<input type="text" name="username" autocomplete="username" value="${view.email}" hidden>
<label for="password">New password (at least 12 characters)</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="12" required>
<label for="code">Current code from the app</label>
<input type="text" id="code" name="code" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" required>
<button type="submit">Finish set-up</button>
</form>`,
    undefined,
    status,
  );
}

const LOG_OUT_FORM = html`<form method="post" action="/console/logout"><button type="submit">Log out</button></form>`;

function recoveryCodesPage(email: string, codes: string[]): PageAnswer {
  return consolePage(
    'Your recovery codes',
    html`<h1>Your recovery codes</h1>
<p>${prose(
      html`The account ${email} is ready. Keep these codes somewhere safe, away from your phone:`,
      html`each logs you in once in place of an authenticator code. They are shown only now.`,
    )}</p>
<ul class="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a href="/console/login">Log in</a></p>`,
  );
}

export function registerStaffPages({ router, context, send, form }: ConsoleDeps): void {
  const { clients } = context;

  router.get('/console/login', (req, res) => send(req, res, logInPage()));
  router.post('/console/login', ...form, async (req, res) => {
    const email = field(req, 'email').trim();
    try {
      const { session } = await clients.identity.staffLogIn({
        email,
        password: field(req, 'password'),
        code: field(req, 'code').trim(),
        clientAddress: clientAddress(req),
      });
      setStaffCookie(res, session!);
      res.redirect(303, CONSOLE_PATH);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      if (error.retryAfterSeconds !== undefined)
        res.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
      // Whatever cannot be credentials is a failed login (401), as for customers.
      await send(
        req,
        res,
        logInPage(email, error.detail, error.kind === 'invalid_argument' ? 401 : HTTP_STATUS[error.kind]),
      );
    }
  });

  router.get('/console/setup/:token', async (req, res) => {
    const token = String(req.params.token);
    const { binding, isNew } = setupBindingOf(req);
    const offer = await clients.identity.getStaffSetup({ setupToken: token, browserBinding: binding });
    if (isNew) keepSetupBinding(res, token, binding);
    await send(
      req,
      res,
      setupPage(token, { email: offer.staff!.email, totpSecret: offer.totpSecret, otpauthUri: offer.otpauthUri }),
    );
  });
  router.post('/console/setup/:token', ...form, async (req, res) => {
    const token = String(req.params.token);
    const { binding } = setupBindingOf(req);
    try {
      const { staff, recoveryCodes } = await clients.identity.completeStaffSetup({
        setupToken: token,
        password: field(req, 'password'),
        code: field(req, 'code').trim(),
        browserBinding: binding,
        clientAddress: clientAddress(req),
      });
      dropSetupBinding(res, token);
      await send(req, res, recoveryCodesPage(staff!.email, recoveryCodes));
    } catch (error) {
      // Another browser's link shows nothing, not even the form again.
      if (!isFormRefusal(error) || error.code === 'setup_link_bound') throw error;
      const offer = await clients.identity.getStaffSetup({ setupToken: token, browserBinding: binding });
      await send(
        req,
        res,
        setupPage(
          token,
          { email: offer.staff!.email, totpSecret: offer.totpSecret, otpauthUri: offer.otpauthUri },
          error.detail,
          HTTP_STATUS[error.kind],
        ),
      );
    }
  });

  // A link followed from the console itself logs out at once; from anywhere else it asks first.
  router.get('/console/logout', async (req, res) => {
    if (req.headers['sec-fetch-site'] === 'same-origin') return logOut(req, res);
    await send(req, res, consolePage('Log out', html`<h1>Log out</h1>${LOG_OUT_FORM}`));
  });
  router.post('/console/logout', ...form, logOut);

  async function logOut(req: Request, res: Response): Promise<void> {
    const token = staffTokenOf(req);
    if (token !== undefined) {
      try {
        await clients.identity.staffLogOut({ sessionToken: token, clientAddress: clientAddress(req) });
      } catch (error) {
        if (!(error instanceof AppError && (error.kind === 'unauthenticated' || error.kind === 'invalid_argument')))
          throw error;
      }
      clearStaffCookie(res);
    }
    res.redirect(303, '/console/login');
  }
}
