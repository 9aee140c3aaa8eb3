/**
 * The console's audit log: every staff login, logout and change from every component, newest
 * first, searched by member, action, subject, component and date, a page at a time; each row says what changed as
 * the fields that differ (changes.ts). The same read as the admin API's `GET /api/admin/audit`.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import type { Request } from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import { AUDIT_COMPONENTS, listStaffActions, type StaffActionView } from './staff-actions';
import { STAFF_ACTION_PARAMETERS, staffActionFilter } from './api';
import { fieldChanges } from './changes';
import { formError } from '../../kit/forms';
import { html } from '../../kit/html';
import { headCell, scrollRegion, tableHead } from '../../kit/table';
import { consolePage, nextPageHref, registerFilteredList, type ConsoleDeps } from '../frame';
import type { StaffCaller } from '../../kit/staff-session';

const FILTER_NAMES = ['staff', 'action', 'subject', 'component', 'from', 'until'] as const;

function filterForm(req: Request) {
  const value = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');
  const component = value('component');
  return html`<form method="get" action="/console/audit" class="filters">
<label for="staff">Staff email</label>
<input type="email" id="staff" name="staff" value="${value('staff')}">
<label for="action">Action</label>
<input type="text" id="action" name="action" value="${value('action')}" placeholder="e.g. order_refunded">
<label for="subject">Subject</label>
<input type="text" id="subject" name="subject" value="${value('subject')}" placeholder="order reference, SKU, code">
<label for="component">Where</label>
<select id="component" name="component"><option value="">Anywhere</option>${AUDIT_COMPONENTS.map(
    (name) => html`<option value="${name}"${component === name ? html` selected` : ''}>${name}</option>`,
  )}</select>
<label for="from">From (date)</label>
<input type="date" id="from" name="from" value="${value('from')}">
<label for="until">Before (date)</label>
<input type="date" id="until" name="until" value="${value('until')}">
<button type="submit">Search</button>
</form>`;
}

/**
 * The fields the action changed, `onHand: 1 → 4; note: delivery`: plain text in the cell, so Markdown keeps the table.
 */
function changeList(action: StaffActionView) {
  const changes = fieldChanges(action.before, action.after);
  if (changes.length === 0) return '—';
  return changes.map(({ field, before, after }, index) => {
    const change = before === undefined ? after! : html`${before} → ${after ?? 'removed'}`;
    return html`${index === 0 ? '' : '; '}<code>${field}</code>: ${change}`;
  });
}

function actionRow(action: StaffActionView) {
  const who = `${action.staffEmail} (${action.role})`;
  const cells = [formatLondonDateTime(action.at), who, action.clientAddress, action.component].map(
    (cell) => html`<td>${cell}</td>`,
  );
  const what = html`<td>${action.subject}</td><td class="changes">${changeList(action)}</td>`;
  return html`<tr>${cells}<th scope="row">${action.action}</th>${what}</tr>`;
}

const ACTIONS_HEAD = tableHead(
  headCell('When (UK time)'),
  headCell('Who'),
  headCell('From'),
  headCell('Where'),
  headCell('Action'),
  headCell('Subject'),
  headCell('What changed'),
);

function auditPage(
  req: Request,
  staff: StaffCaller,
  page: Awaited<ReturnType<typeof listStaffActions>> | undefined,
  error?: AppError,
) {
  const rows = page?.actions.map(actionRow) ?? [];
  const caption = 'Staff actions, newest first';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${ACTIONS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const older = page?.nextCursor ? nextPageHref(req, '/console/audit', FILTER_NAMES, page.nextCursor) : undefined;
  return consolePage(
    'Audit log',
    html`<h1>Audit log</h1>${filterForm(req)}${formError(error?.detail)}
${rows.length > 0 ? table : error ? '' : html`<p>No actions match.</p>`}
${older ? html`<p><a href="${older}">Older actions</a></p>` : ''}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

export function registerAuditPages(deps: ConsoleDeps): void {
  registerFilteredList(deps, {
    path: '/console/audit',
    parameters: STAFF_ACTION_PARAMETERS,
    load: (req, staff) => listStaffActions(deps.context, staffActionFilter(req), staff),
    render: auditPage,
  });
}
