/**
 * The console's mail log (decision 1305): what the shop mailed to whom and when, from every component's outbox, newest
 * queued first, searched by address, a page at a time; each mail opens its preview, its text shown as text, never as
 * the page's HTML. Every staff member reads it, as they read customers.
 */
import type { Request } from 'express';
import { AppError, HTTP_STATUS, notFound } from '@storefront/errors';
import type { mail } from '@storefront/proto';
import {
  MAIL_COMPONENTS,
  listMailLog,
  mailForStaff,
  type MailComponent,
  type MailLogRow,
} from '../../application/mail-log';
import { formError } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, scrollRegion, tableHead } from '../../kit/table';
import { Type } from '../../kit/schema';
import type { StaffCaller } from '../../kit/staff-session';
import type { Parameter } from '../../kit/validator';
import { consolePage, nextPageHref, registerFilteredList, type ConsoleDeps } from '../frame';

const PATH = '/console/mail';
const FILTER_NAMES = ['recipient'] as const;

const MAIL_LOG_PARAMETERS: Parameter[] = [
  {
    name: 'recipient',
    in: 'query',
    required: false,
    description: 'Only mails to this address (exact, any letter case)',
    schema: Type.String({ minLength: 3, maxLength: 254 }),
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The next page link of the previous page; opaque',
    schema: Type.String({ minLength: 1, maxLength: 300 }),
  },
];

const STATUS_WORDS: Record<string, string> = { queued: 'Waiting', retrying: 'Failed, retrying', sent: 'Sent' };

const when = (epochMs: number) => (epochMs ? new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ') : '—');
const previewPath = (row: { component: string; key: string }) =>
  `${PATH}/${row.component}/${encodeURIComponent(row.key)}`;

function outcome(entry: mail.MailLogEntry) {
  if (entry.status === 'sent') return html`Sent ${when(entry.sentAt)}`;
  if (entry.status === 'retrying') {
    const failed = `${entry.attempts} failed, last ${when(entry.lastFailedAt)} (${entry.lastError})`;
    return html`${STATUS_WORDS.retrying}: ${failed}`;
  }
  return STATUS_WORDS.queued!;
}

const cell = (value: string | Html) => html`<td>${value}</td>`;

function mailRow(row: MailLogRow) {
  const subject = html`<th scope="row"><a href="${previewPath(row)}">${row.subject}</a></th>`;
  const before = [when(row.queuedAt), row.recipient].map(cell);
  const after = [row.kind, row.component, outcome(row)].map(cell);
  return html`<tr>${before}${subject}${after}</tr>`;
}

const MAILS_HEAD = tableHead(
  headCell('Queued (UTC)'),
  headCell('To'),
  headCell('Subject'),
  headCell('Kind'),
  headCell('From'),
  headCell('Outcome'),
);

function mailLogPage(
  req: Request,
  staff: StaffCaller,
  page: Awaited<ReturnType<typeof listMailLog>> | undefined,
  error?: AppError,
) {
  const recipient = typeof req.query['recipient'] === 'string' ? req.query['recipient'] : '';
  const rows = page?.mails.map(mailRow) ?? [];
  const caption = 'Mails, newest first';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${MAILS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const older = page?.nextCursor ? nextPageHref(req, PATH, FILTER_NAMES, page.nextCursor) : undefined;
  return consolePage(
    'Mail log',
    html`<h1>Mail log</h1>
<p>${prose(
      html`Every mail the shop queued, newest first.`,
      html`A mail's text is kept for a while after sending; then only who, what and when.`,
    )}</p>
<form method="get" action="${PATH}" class="filters">
<label for="recipient">Recipient's email</label>
<input type="email" id="recipient" name="recipient" value="${recipient}">
<button type="submit">Search</button>
</form>${formError(error?.detail)}
${rows.length > 0 ? table : error ? '' : html`<p>No mails match.</p>`}
${older ? html`<p><a href="${older}">Older mails</a></p>` : ''}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

const BODY_WORDS: Record<string, string> = {
  expired: 'The text of this mail is no longer kept (kept for a while after sending, and never after an erasure).',
  withheld:
    'This mail carries a link that acts for its recipient (a password reset, an address confirmation), ' +
    'so its text is never shown.',
};

function previewPage(staff: StaffCaller, component: MailComponent, preview: mail.MailPreview) {
  const entry = preview.mail!;
  const text =
    preview.bodyState === 'kept'
      ? html`<pre class="mail-text">${preview.text}</pre>`
      : html`<p>${BODY_WORDS[preview.bodyState] ?? ''}</p>`;
  return consolePage(
    `Mail: ${entry.subject}`,
    html`<h1>${entry.subject}</h1>
<p><a href="${PATH}">Back to the mail log</a></p>
<dl>
<dt>To</dt><dd>${entry.recipient}</dd>
<dt>Kind</dt><dd>${entry.kind} (${component})</dd>
<dt>Key</dt><dd><code>${entry.key}</code></dd>
<dt>Queued (UTC)</dt><dd>${when(entry.queuedAt)}</dd>
<dt>Outcome</dt><dd>${outcome(entry)}</dd>
</dl>
<h2>Text</h2>
${text}`,
    staff,
  );
}

export function registerMailPages(deps: ConsoleDeps): void {
  registerFilteredList(deps, {
    path: PATH,
    parameters: MAIL_LOG_PARAMETERS,
    load: (req, staff) =>
      listMailLog(
        deps.context,
        {
          ...(typeof req.query['recipient'] === 'string' && req.query['recipient'] !== ''
            ? { recipient: req.query['recipient'] }
            : {}),
          ...(typeof req.query['cursor'] === 'string' ? { cursor: req.query['cursor'] } : {}),
        },
        staff,
      ),
    render: mailLogPage,
  });
  deps.router.get(`${PATH}/:component/:key`, async (req, res) => {
    const staff = await deps.signedIn(req, res);
    if (!staff) return;
    const component = MAIL_COMPONENTS.find((name) => name === req.params['component']);
    if (!component) throw notFound('no mail log of that name', 'mail_not_found');
    await deps.send(
      req,
      res,
      previewPage(staff, component, await mailForStaff(deps.context, component, req.params['key']!, staff)),
    );
  });
}
