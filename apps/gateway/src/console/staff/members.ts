/**
 * The console's staff members page: every member with their role, state, when they were added and their last login,
 * for any staff member to read; an owner adds a member, resets or disables one (after a confirmation) and re-enables
 * a disabled one. Identity checks the role of every change and records it (and any refusal); a new set-up link is
 * shown here once.
 */
import type { Request, Response } from 'express';
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import { AppError, HTTP_STATUS, notFound } from '@storefront/errors';
import type { identity } from '@storefront/proto';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, scrollRegion, tableHead } from '../../kit/table';
import { requireOwner, type StaffCaller } from '../../kit/staff-session';
import type { GatewayContext } from '../../context';
import { consolePage, type ConsoleDeps } from '../frame';

const PATH = '/console/staff';

const STATE_WORDS: Record<string, string> = {
  active: 'active',
  setup_pending: 'set-up pending',
  disabled: 'disabled',
};

interface AddValues {
  email: string;
  role: string;
}

interface PageNotice {
  error?: AppError;
  /** A member just disabled: said once, after the redirect. */
  disabled?: string;
  add?: AddValues;
  reenable?: string;
}

const lastLogin = (at: string) => (at ? formatLondonDateTime(at) : 'none recorded');

/** A form posting a member's email to `${PATH}/${action}`; `confirm` is the confirmation page's "yes". */
function memberForm(action: string, email: string, button: string, confirm: Html | '' = ''): Html {
  const member = html`<input type="hidden" name="email" value="${email}">`;
  const submit = html`<button type="submit">${button}</button>`;
  return html`<form method="post" action="${PATH}/${action}">${member}${confirm}${submit}</form>`;
}

function memberRow(entry: identity.StaffMemberState, staff: StaffCaller) {
  const { email, role } = entry.member!;
  const actions =
    staff.role !== 'owner'
      ? ''
      : entry.state === 'disabled'
        ? memberForm('enable', email, `Re-enable ${email}`)
        : html`${memberForm('reset', email, `Reset ${email}`)}${
            entry.member!.id === staff.id ? '' : memberForm('disable', email, `Disable ${email}`)
          }`;
  const state = STATE_WORDS[entry.state] ?? entry.state;
  const cells = [role, state, formatLondonDateTime(entry.addedAt), lastLogin(entry.lastLoginAt)].map(
    (cell) => html`<td>${cell}</td>`,
  );
  return html`<tr><th scope="row">${email}</th>${cells}${staff.role === 'owner' ? html`<td>${actions}</td>` : ''}</tr>`;
}

function ownerForms({ add = { email: '', role: 'staff' }, reenable = '' }: PageNotice) {
  return html`<h2>Add a staff member</h2>
<p>${prose(
    html`An owner does everything; staff read everything and dispatch, deliver and cancel orders.`,
    html`The new member sets up a password and an authenticator from a one-time link, shown once after adding them.`,
  )}</p>
<form method="post" action="${PATH}/add">
<label for="add-email">Email</label>
<input type="email" id="add-email" name="email" value="${add.email}" autocomplete="off" required>
<label for="add-role">Role</label>
<select id="add-role" name="role">
<option value="staff"${add.role === 'owner' ? '' : ' selected'}>staff</option>
<option value="owner"${add.role === 'owner' ? ' selected' : ''}>owner</option>
</select>
<button type="submit">Add and make a set-up link</button>
</form>
<h2>Re-enable a disabled member</h2>
<p>The member sets up a new password and authenticator from a new link; nothing of their old ones works again.</p>
<form method="post" action="${PATH}/enable">
<label for="email">Email of the disabled member</label>
<input type="email" id="email" name="email" value="${reenable}" required>
<button type="submit">Re-enable and make a set-up link</button>
</form>`;
}

function membersPage(staff: StaffCaller, members: identity.StaffMemberState[], notice: PageNotice = {}) {
  const { error, disabled } = notice;
  const owner = staff.role === 'owner';
  const disabledNote = disabled
    ? html`<p role="status">${disabled} is disabled: their sessions end at their next request.</p>`
    : '';
  const head = tableHead(
    headCell('Email'),
    headCell('Role'),
    headCell('State'),
    headCell('Added'),
    headCell('Last login'),
    ...(owner ? [headCell('Actions')] : []),
  );
  const rows = members.map((entry) => memberRow(entry, staff));
  const table = scrollRegion(
    'Staff members by email',
    html`<table><caption class="vh">Staff members by email</caption>${head}<tbody>${rows}</tbody></table>`,
  );
  return consolePage(
    'Staff members',
    html`<h1>Staff members</h1>${disabledNote}${formError(error?.detail)}
${table}
${owner ? ownerForms(notice) : html`<p>Only an owner adds, resets, disables or re-enables members.</p>`}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

function confirmDisablePage(staff: StaffCaller, email: string) {
  return consolePage(
    `Disable ${email}?`,
    html`<h1>Disable ${email}?</h1>
<p>${prose(
      html`${email} can no longer log in, and their sessions end at their next request.`,
      html`An owner may re-enable them later with a new set-up link.`,
    )}</p>
${memberForm('disable', email, `Yes, disable ${email} now`, html`<input type="hidden" name="confirm" value="yes">`)}
<p><a href="${PATH}">Keep them</a></p>`,
    staff,
  );
}

/** A new set-up link, shown only in this answer (identity keeps only its hash). */
function setupLinkPage(
  context: GatewayContext,
  staff: StaffCaller,
  title: string,
  said: string,
  issued: Pick<identity.AddStaffResponse, 'setupToken' | 'setupExpiresAt'>,
) {
  const link = new URL(`console/setup/${issued.setupToken}`, `${context.config.publicBaseUrl.replace(/\/*$/, '')}/`);
  return consolePage(
    title,
    html`<h1>${title}</h1>
<p>${prose(
      html`${said} Give them this set-up link, shown only now;`,
      html`it works once, until ${formatLondonDateTime(issued.setupExpiresAt)}, in the first browser that opens it:`,
    )}</p>
<p><code id="setup-link">${link.toString()}</code></p>
<p><a href="${PATH}">Back to staff members</a></p>`,
    staff,
  );
}

export function registerStaffMemberPages({ router, context, send, form, signedIn }: ConsoleDeps): void {
  const identityClient = context.clients.identity;
  const listMembers = async (staff: StaffCaller) => (await identityClient.listStaff({}, { staff })).staff;

  router.get(PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const members = await listMembers(staff);
    // Named only while the list says so, so a crafted link cannot claim it.
    const named = typeof req.query.disabled === 'string' ? req.query.disabled : '';
    const disabled = members.find((entry) => entry.member!.email === named && entry.state === 'disabled');
    await send(req, res, membersPage(staff, members, { disabled: disabled?.member!.email }));
  });

  router.post(`${PATH}/add`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const add = { email: field(req, 'email').trim(), role: field(req, 'role') };
    try {
      const added = await identityClient.addStaff(add, { staff });
      const { email, role } = added.staff!;
      await send(req, res, setupLinkPage(context, staff, 'Staff member added', `${email} is added as ${role}.`, added));
    } catch (error) {
      await refused(req, res, staff, error, { add });
    }
  });

  router.post(`${PATH}/reset`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    try {
      const reset = await identityClient.resetStaff({ email: field(req, 'email').trim() }, { staff });
      const said = `${reset.staff!.email}'s password, authenticator, recovery codes and sessions no longer work.`;
      await send(req, res, setupLinkPage(context, staff, 'Staff member reset', said, reset));
    } catch (error) {
      await refused(req, res, staff, error);
    }
  });

  // The first post asks once more; only the post carrying `confirm` disables.
  router.post(`${PATH}/disable`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const email = field(req, 'email').trim();
    try {
      if (field(req, 'confirm') !== 'yes') {
        requireOwner(staff, 'disable a staff member');
        const member = (await listMembers(staff)).find((entry) => entry.member!.email === email.toLowerCase());
        if (!member) throw notFound(`no staff member has the email ${email}`, 'staff_not_found');
        await send(req, res, confirmDisablePage(staff, member.member!.email));
        return;
      }
      const { staff: disabled } = await identityClient.disableStaff({ email }, { staff });
      res.redirect(303, `${PATH}?disabled=${encodeURIComponent(disabled!.email)}`);
    } catch (error) {
      await refused(req, res, staff, error);
    }
  });

  router.post(`${PATH}/enable`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const email = field(req, 'email').trim();
    try {
      const reenabled = await identityClient.reenableStaff({ email }, { staff });
      await send(
        req,
        res,
        setupLinkPage(
          context,
          staff,
          'Staff member re-enabled',
          `${reenabled.staff!.email} is enabled again.`,
          reenabled,
        ),
      );
    } catch (error) {
      await refused(req, res, staff, error, { reenable: email });
    }
  });

  /** The page again, saying why, with what was typed. */
  async function refused(req: Request, res: Response, staff: StaffCaller, error: unknown, notice: PageNotice = {}) {
    if (!isFormRefusal(error) && !isRefusedOrUnknown(error)) throw error;
    await send(req, res, membersPage(staff, await listMembers(staff), { ...notice, error }));
  }
}

/** A member of another role, or an email no member has: said on the form, like its other refusals. */
function isRefusedOrUnknown(error: unknown): error is AppError {
  return error instanceof AppError && (error.kind === 'permission_denied' || error.kind === 'not_found');
}
