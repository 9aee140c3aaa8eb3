/**
 * The console: an owner closes a customer's account when the customer asks them to (decision 1300), confirmed twice:
 * the customer's page links to a page of its own that says what closing means and asks the customer's email typed
 * again; only that post closes. Identity records it in the audit log; the erasure then runs as the customer's own.
 */
import { AppError, HTTP_STATUS, invalidArgument } from '@storefront/errors';
import { closeAccountForStaff } from '../../application/account-erasure';
import { customerForStaff, type CustomerForStaff } from '../../application/staff-customers';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, prose } from '../../kit/html';
import { requireOwner, type StaffCaller } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';

const closePath = (id: string) => `/console/customers/${encodeURIComponent(id)}/close`;

/** The customer page's link, for owners. */
export function closeAccountLink(accountId: string) {
  return html`<h2>Close the account</h2>
<p>${prose(
    html`When the customer asks for their account to be closed and their data erased:`,
    html`<a href="${closePath(accountId)}">Close this account</a>.`,
  )}</p>`;
}

function closePage(staff: StaffCaller, { profile }: CustomerForStaff, error?: AppError) {
  return consolePage(
    'Close the account',
    html`<h1>Close ${profile.email}'s account</h1>${formError(error?.detail)}
<p>${prose(
      html`The account ends at once`,
      html`and every part of the shop erases the customer's name, email, phone, addresses and mails.`,
      html`Order totals, VAT, refunds and the loyalty ledger's sums stay, under no name.`,
      html`A last email confirms it to the customer.`,
      html`This cannot be undone, and is recorded in the audit log under your name.`,
    )}</p>
<form method="post" action="${closePath(profile.id)}">
<label for="email">Type the customer's email again to confirm</label>
<input type="email" id="email" name="email" autocomplete="off" required>
<button type="submit">Close the account and erase the data</button>
</form>
<p><a href="/console/customers/${encodeURIComponent(profile.id)}">Cancel</a></p>`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

function closedPage(staff: StaffCaller) {
  return consolePage(
    'Account closed',
    html`<h1>Account closed</h1><p role="status">${prose(
      html`The account is closed and its data is being erased from every part of the shop;`,
      html`the request is listed under <a href="/console/data-requests">data requests</a>,`,
      html`answered once every part has erased it.`,
    )}</p>`,
    staff,
  );
}

export function registerCloseAccountPages(deps: ConsoleDeps): void {
  const { router, context, send, form, signedIn } = deps;

  router.get('/console/customers/:id/close', async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    requireOwner(staff, 'close an account');
    await send(
      req,
      res,
      closePage(staff, await customerForStaff(context, { accountId: String(req.params.id) }, staff)),
    );
  });

  router.post('/console/customers/:id/close', ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    requireOwner(staff, 'close an account');
    const view = await customerForStaff(context, { accountId: String(req.params.id) }, staff);
    try {
      if (field(req, 'email').trim().toLowerCase() !== view.profile.email.toLowerCase())
        throw invalidArgument("The email typed is not this customer's; nothing was closed");
      await closeAccountForStaff(context, view.profile.id, staff);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      return send(req, res, closePage(staff, view, error));
    }
    await send(req, res, closedPage(staff));
  });
}
