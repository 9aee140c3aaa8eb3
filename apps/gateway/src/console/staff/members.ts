/**
 * The console's staff members page: an owner re-enables a disabled member, who starts again from a new set-up link
 * shown here once (identity refuses, and records, any other role). Adding, resetting and disabling members stay with
 * identity's ops command line.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html } from '../../kit/html';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';

const PATH = '/console/staff';

function membersPage(staff: StaffCaller, email = '', error?: AppError) {
  return consolePage(
    'Staff members',
    html`<h1>Staff members</h1>${formError(error?.detail)}
<h2>Re-enable a disabled member</h2>
<p>Owners only. The member sets up a new password and authenticator from a new link; nothing of their old ones works again.</p>
<form method="post" action="${PATH}/enable">
<label for="email">Email of the disabled member</label>
<input type="email" id="email" name="email" value="${email}" required>
<button type="submit">Re-enable and make a set-up link</button>
</form>`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

function reenabledPage(staff: StaffCaller, email: string, link: string, expiresAt: string) {
  return consolePage(
    'Staff member re-enabled',
    html`<h1>Staff member re-enabled</h1>
<p>${email} is enabled again. Give them this set-up link, shown only now; it works once, until ${expiresAt}, in the first browser that opens it:</p>
<p><code id="setup-link">${link}</code></p>
<p><a href="${PATH}">Back to staff members</a></p>`,
    staff,
  );
}

export function registerStaffMemberPages({ router, context, send, form, signedIn }: ConsoleDeps): void {
  router.get(PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, membersPage(staff));
  });

  router.post(`${PATH}/enable`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const email = field(req, 'email').trim();
    try {
      const reenabled = await context.clients.identity.reenableStaff({ email }, { staff });
      const link = new URL(
        `console/setup/${reenabled.setupToken}`,
        `${context.config.publicBaseUrl.replace(/\/*$/, '')}/`,
      );
      const expiresAt = formatLondonDateTime(reenabled.setupExpiresAt);
      await send(req, res, reenabledPage(staff, reenabled.staff!.email, link.toString(), expiresAt));
    } catch (error) {
      if (!isFormRefusal(error) && !isRefusedOrUnknown(error)) throw error;
      await send(req, res, membersPage(staff, email, error));
    }
  });
}

/** A member of another role, or an email no member has: said on the form, like its other refusals. */
function isRefusedOrUnknown(error: unknown): error is AppError {
  return error instanceof AppError && (error.kind === 'permission_denied' || error.kind === 'not_found');
}
