/**
 * The mail log: a component's outbox read for the console, newest queued first, with the text of a mail while it is
 * kept (decision 1305). Each component binds these to its own RPCs over its own outbox.
 */
import type { Knex, Migration } from '@storefront/db';
import { invalidArgument, notFound } from '@storefront/errors';
import type { mail } from '@storefront/proto';
import { OUTBOX_TABLE } from './outbox';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** The columns and indexes the mail log needs; each component adds them with a migration of its own. */
export const mailLogMigration: Migration = {
  async up(db) {
    await db.schema.alterTable(OUTBOX_TABLE, (t) => {
      t.boolean('withhold_body').notNullable().defaultTo(false);
      // Epoch milliseconds of the last failed attempt.
      t.bigInteger('last_failed_at').nullable();
      t.index(['created_at', 'mail_key'], 'mail_outbox_by_creation');
      t.index(['recipient', 'created_at'], 'mail_outbox_by_recipient');
    });
  },
  async down(db) {
    await db.schema.alterTable(OUTBOX_TABLE, (t) => {
      t.dropIndex(['recipient', 'created_at'], 'mail_outbox_by_recipient');
      t.dropIndex(['created_at', 'mail_key'], 'mail_outbox_by_creation');
      t.dropColumn('last_failed_at');
      t.dropColumn('withhold_body');
    });
  },
};

/** One page of the log, as the facades answer it. */
export async function mailLogPage(db: Knex, query: mail.MailLogQuery | undefined): Promise<mail.MailLogPage> {
  const limit = query?.limit ? query.limit : DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidArgument(`limit must be 1 to ${MAX_PAGE_SIZE}`, 'invalid_limit');
  }
  const recipient = query?.recipient?.trim() ?? '';
  let rows = db(OUTBOX_TABLE);
  // Addresses are stored as they were given; customers' are lower-case, so both spellings are looked up.
  if (recipient) rows = rows.whereIn('recipient', [...new Set([recipient, recipient.toLowerCase()])]);
  const beforeAt = query?.beforeQueuedAt ?? 0;
  const beforeKey = query?.beforeKey ?? '';
  if (beforeAt) {
    rows = rows.where((older) => {
      older.where('created_at', '<', beforeAt);
      if (beforeKey) older.orWhere((same) => same.where('created_at', beforeAt).where('mail_key', '<', beforeKey));
    });
  }
  const found = (await rows
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'mail_key', order: 'desc' },
    ])
    .limit(limit + 1)
    .select(ENTRY_COLUMNS)) as Array<Record<string, unknown>>;
  return { mails: found.slice(0, limit).map(entryOf), more: found.length > limit };
}

/** One mail with its text while kept; `not_found` for a key this outbox never held (or purged). */
export async function mailPreview(db: Knex, key: string): Promise<mail.MailPreview> {
  const row = (await db(OUTBOX_TABLE)
    .where({ mail_key: key })
    .first([...ENTRY_COLUMNS, 'text_body', 'withhold_body'])) as Record<string, unknown> | undefined;
  if (!row) throw notFound('no mail with this key in the log', 'mail_not_found');
  const text = String(row['text_body']);
  if (row['withhold_body']) return { mail: entryOf(row), text: '', bodyState: 'withheld' };
  return text
    ? { mail: entryOf(row), text, bodyState: 'kept' }
    : { mail: entryOf(row), text: '', bodyState: 'expired' };
}

const ENTRY_COLUMNS = [
  'mail_key',
  'recipient',
  'subject',
  'created_at',
  'sent_at',
  'last_failed_at',
  'attempts',
  'last_error',
];

function entryOf(row: Record<string, unknown>): mail.MailLogEntry {
  const key = String(row['mail_key']);
  const attempts = Number(row['attempts']);
  const sentAt = row['sent_at'] == null ? 0 : Number(row['sent_at']);
  return {
    key,
    kind: key.split(':')[0]!,
    recipient: String(row['recipient']),
    subject: String(row['subject']),
    status: sentAt ? 'sent' : attempts > 0 ? 'retrying' : 'queued',
    queuedAt: Number(row['created_at']),
    sentAt,
    lastFailedAt: row['last_failed_at'] == null ? 0 : Number(row['last_failed_at']),
    attempts,
    lastError: row['last_error'] == null ? '' : String(row['last_error']),
  };
}
