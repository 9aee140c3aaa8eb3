/**
 * The shop's mail log across the components that send mail (decision 1305): each keeps its own outbox, so a page here
 * is a merge of one page from each, newest queued first. The order is (queued at desc, component, key desc); the
 * cursor names the last mail shown by those three, so every component can be asked for exactly the mails after it.
 */
import { invalidArgument } from '@storefront/errors';
import type { mail } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';

export const MAIL_COMPONENTS = ['checkout', 'identity', 'inventory'] as const;
export type MailComponent = (typeof MAIL_COMPONENTS)[number];
export const MAIL_PAGE_SIZE = 50;

export interface MailLogRow extends mail.MailLogEntry {
  component: MailComponent;
}

interface Position {
  queuedAt: number;
  component: number;
  key: string;
}

const CURSOR = /^(\d{1,15})\.([0-2])\.([A-Za-z0-9_-]{1,260})$/;

function encodeCursor({ queuedAt, component, key }: Position): string {
  return `${queuedAt}.${component}.${Buffer.from(key).toString('base64url')}`;
}

function positionOf(cursor: string): Position {
  const match = CURSOR.exec(cursor);
  if (!match) throw invalidArgument('cursor is not one this service issued', 'invalid_cursor');
  return {
    queuedAt: Number(match[1]),
    component: Number(match[2]),
    key: Buffer.from(match[3]!, 'base64url').toString(),
  };
}

/** Where component `index` resumes after `position`: in the same millisecond, earlier components came first. */
function resumeFor(
  index: number,
  position: Position | undefined,
): Pick<mail.MailLogQuery, 'beforeQueuedAt' | 'beforeKey'> {
  if (!position) return { beforeQueuedAt: 0, beforeKey: '' };
  if (index < position.component) return { beforeQueuedAt: position.queuedAt, beforeKey: '' };
  if (index === position.component) return { beforeQueuedAt: position.queuedAt, beforeKey: position.key };
  return { beforeQueuedAt: position.queuedAt + 1, beforeKey: '' };
}

const componentIndex = (row: MailLogRow) => MAIL_COMPONENTS.indexOf(row.component);

const newestFirst = (a: MailLogRow, b: MailLogRow) =>
  b.queuedAt - a.queuedAt || componentIndex(a) - componentIndex(b) || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);

/** A page of every component's mails (to `recipient` when given), newest queued first, and the next page's cursor. */
export async function listMailLog(
  { clients }: Pick<GatewayContext, 'clients'>,
  filter: { recipient?: string; cursor?: string },
  staff: StaffCaller,
): Promise<{ mails: MailLogRow[]; nextCursor?: string }> {
  const position = filter.cursor === undefined ? undefined : positionOf(filter.cursor);
  const pages = await Promise.all(
    MAIL_COMPONENTS.map(async (component, index) => {
      const query = { recipient: filter.recipient ?? '', limit: MAIL_PAGE_SIZE, ...resumeFor(index, position) };
      const { page } = await clients[component].listMailLog({ query }, { staff });
      return { rows: page!.mails.map((entry) => ({ ...entry, component })), more: page!.more };
    }),
  );
  const merged = pages.flatMap((page) => page.rows).sort(newestFirst);
  const shown = merged.slice(0, MAIL_PAGE_SIZE);
  const last = shown.at(-1);
  const more = merged.length > MAIL_PAGE_SIZE || pages.some((page) => page.more);
  return {
    mails: shown,
    ...(more && last
      ? { nextCursor: encodeCursor({ queuedAt: last.queuedAt, component: componentIndex(last), key: last.key }) }
      : {}),
  };
}

/** One mail of `component`'s log with its text while kept. */
export async function mailForStaff(
  { clients }: Pick<GatewayContext, 'clients'>,
  component: MailComponent,
  key: string,
  staff: StaffCaller,
): Promise<mail.MailPreview> {
  const { mail: preview } = await clients[component].getMailForStaff({ key }, { staff });
  return preview!;
}
