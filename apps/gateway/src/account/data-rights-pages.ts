/**
 * The customer's data rights as pages: "Download my data", the marketing switch and "Close my account" (a page of its
 * own: the password and the typed words are the second confirmation) on the account page, and the
 * unsubscribe link of a marketing mail. The link opens a page with a button, so a link scanner that opens it withdraws
 * nothing; the button, and a mail client's one-click POST (RFC 8058), post the token to /unsubscribe without a session.
 */
import express from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import { MARKETING_CONSENT } from '@storefront/formats';
import type { GatewayContext } from '../context';
import { startDataExport } from '../application/data-export';
import { closeAccount } from '../application/account-erasure';
import { setMarketingConsent, unsubscribe } from '../application/marketing-consent';
import { clearSessionCookie, clientAddress, sessionOf } from '../kit/customer-session';
import { field, formError, inFormWords, isFormRefusal } from '../kit/forms';
import { html, prose, type Html } from '../kit/html';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { sendDataExport } from './data-rights-api';
import { CLOSE_ACCOUNT_WORDS, CloseAccountRequest } from './schemas';

const CONSENT_CHECKBOX = html`<input type="checkbox" id="marketingConsent" name="marketingConsent" value="yes">`;
const CONSENT_LABEL = html`<label for="marketingConsent">${MARKETING_CONSENT.wording}</label>`;

/** The unticked box of the sign-up form, with the wording whose version the consent is recorded under. */
export const MARKETING_CONSENT_BOX = html`<p>${CONSENT_CHECKBOX} ${CONSENT_LABEL}</p>`;

const granted = (grant: boolean) => html`<input type="hidden" name="granted" value="${grant ? 'yes' : 'no'}">`;

/** The account page's section: the download, and the marketing switch saying what it is now. */
export function dataRightsSection(wantsMarketing: boolean, saved: boolean): Html {
  const now = wantsMarketing ? 'You receive our marketing emails.' : 'You do not receive marketing emails.';
  const wording = wantsMarketing ? '' : html`<p>${MARKETING_CONSENT.wording}</p>`;
  const switchWords = wantsMarketing ? 'Stop marketing emails' : 'Send me marketing emails';
  const submit = html`<button type="submit">${switchWords}</button>`;
  return html`<h2>Your data</h2>
<p>${prose(
    html`<a href="/account/data-export" download>Download my data</a>: everything we hold about you, as one JSON file.`,
    html`<a href="/privacy">How we use your data</a>`,
  )}</p>
<h3>Marketing emails</h3>
${saved ? html`<p class="ok" role="status">Your choice is saved.</p>` : ''}
<p>${now} Order, dispatch and account emails are sent either way.</p>
<form method="post" action="/account/marketing-consent">${granted(!wantsMarketing)}${wording}${submit}</form>
<h3>Close my account</h3>
<p><a href="/account/close">Close my account</a> and erase what identifies you.</p>`;
}

/** The second step: what closing means, the password and the typed words. */
function closeAccountPage(error?: string, status = 200): PageAnswer {
  return {
    title: 'Close my account',
    description: 'Close the account and erase what identifies you',
    caching: 'private',
    status,
    main: html`<h1>Close my account</h1>${formError(error)}
<p>${prose(
      html`Your account ends at once: you are logged out everywhere, your points and rewards can no longer be used,`,
      html`and your name, email, phone, addresses and mails are erased from every part of the shop.`,
      html`We keep only what the law requires for the books`,
      html`(order totals, VAT and refunds, and the loyalty ledger's sums), under no name. A last email confirms it.`,
      html`This cannot be undone; you may sign up again later with the same email, as a new customer.`,
    )}</p>
<p>It cannot be done while an order is unpaid or a refund is pending.</p>
<form method="post" action="/account/close">
<p><label for="currentPassword">Your password</label><br>
<input type="password" id="currentPassword" name="currentPassword" autocomplete="current-password" required></p>
<p><label for="confirm">Type <strong>${CLOSE_ACCOUNT_WORDS}</strong> to confirm</label><br>
<input type="text" id="confirm" name="confirm" autocomplete="off" required></p>
<p><button type="submit">Close my account</button> <a href="/account">Keep my account</a></p>
</form>`,
  };
}

function accountClosedPage(): PageAnswer {
  return {
    title: 'Account closed',
    description: 'Your account is closed',
    caching: 'private',
    main: html`<h1>Account closed</h1><p role="status">${prose(
      html`Your account is closed and what identifies you is being erased from every part of the shop.`,
      html`A last email confirms it once done.`,
    )}</p><p><a href="/">Back to the shop</a></p>`,
  };
}

function unsubscribePage(token: string, error?: string, status = 200): PageAnswer {
  const action = `/unsubscribe?token=${encodeURIComponent(token)}`;
  const form = html`<form method="post" action="${action}"><button type="submit">Unsubscribe</button></form>`;
  return {
    title: 'Unsubscribe',
    description: 'Stop marketing emails',
    caching: 'private',
    status,
    main: html`<h1>Stop marketing emails</h1>${formError(error)}<p>${prose(
      html`We will send you no more marketing emails.`,
      html`Order, dispatch and account emails still reach you.`,
    )}</p>
${form}`,
  };
}

function unsubscribedPage(): PageAnswer {
  return {
    title: 'Unsubscribed',
    description: 'Unsubscribed from marketing emails',
    caching: 'private',
    main: html`<h1>Unsubscribed</h1><p role="status">${prose(
      html`You will receive no more marketing emails.`,
      html`You can change this at any time on <a href="/account">your account</a>.`,
    )}</p>`,
  };
}

export function registerDataRightsPages(pages: PageRoutes, context: GatewayContext): void {
  const { router, form, send } = pages;

  router.get('/account/data-export', async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    const write = await startDataExport(context, session.userId);
    await sendDataExport(context, res, write, new Date(context.now()).toISOString().slice(0, 10));
  });

  router.get('/account/close', async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    await send(req, res, closeAccountPage());
  });

  router.post('/account/close', ...form, async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    const body = {
      currentPassword: field(req, 'currentPassword'),
      confirm: field(req, 'confirm').trim().toLowerCase(),
    };
    try {
      context.validator.check(CloseAccountRequest, body, 'body');
      await closeAccount(context, session.userId, body.currentPassword, clientAddress(req));
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const words =
        error.code === 'invalid_request' && error.detail.startsWith('confirm ')
          ? `Type ${CLOSE_ACCOUNT_WORDS} to confirm`
          : inFormWords(error.detail, { currentPassword: 'Your password' });
      return send(req, res, closeAccountPage(words, HTTP_STATUS[error.kind]));
    }
    clearSessionCookie(res);
    await send(req, res, accountClosedPage());
  });

  router.post('/account/marketing-consent', ...form, async (req, res) => {
    const session = await sessionOf(req, res, context);
    if (!session) return void res.redirect(303, '/account/login');
    await setMarketingConsent(context, session.userId, field(req, 'granted') === 'yes');
    res.redirect(303, '/account?saved=marketing');
  });

  const tokenOf = (req: express.Request) => (typeof req.query.token === 'string' ? req.query.token : '');
  router.get('/unsubscribe', (req, res) => send(req, res, unsubscribePage(tokenOf(req))));
  // From a mail client's one-click POST as from the page's button: the token is the credential, no session and no
  // same-site rule (a mail client's POST comes from no page of ours).
  router.post('/unsubscribe', express.urlencoded({ extended: false, limit: 1024 }), async (req, res) => {
    const token = tokenOf(req);
    try {
      await unsubscribe(context, token);
      await send(req, res, unsubscribedPage());
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_unsubscribe_token') throw error;
      const words =
        'This unsubscribe link is not valid: it may have been altered. Use the link in the mail, or your account page.';
      await send(req, res, unsubscribePage(token, words, HTTP_STATUS[error.kind]));
    }
  });
}
