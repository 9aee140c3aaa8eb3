/**
 * A component's mail outbox: one table in the component's own store. A mail is written in the
 * transaction of the event that causes it, under a unique key, so it exists exactly when the
 * event does and a repeated event adds nothing. Senders claim due rows with a lease (a
 * conditional UPDATE per row, the same on SQLite and MySQL), so replicas never send one row at
 * the same time; a failed attempt is due again after a doubling wait.
 */
import type { Knex, Migration } from '@storefront/db';

export const OUTBOX_TABLE = 'mail_outbox';

/** A composed mail, ready to be sent. */
export interface Mail {
  /** Unique per event, e.g. `order-confirmation:<reference>`: a second mail with a known key is dropped. */
  key: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra header lines (a marketing mail's List-Unsubscribe); only outboxes with a `headers_json` column take them. */
  headers?: Record<string, string>;
  /**
   * The body carries a link that acts as its recipient (an address verification, a password reset, a subscription's
   * confirmation): it is dropped at sending and never shown in the mail log (decision 1305).
   */
  withholdBody?: boolean;
}

export interface ClaimedMail extends Mail {
  attempts: number;
  createdAt: number;
}

/** The outbox table; each component adds it with a migration of its own. */
export const mailOutboxMigration: Migration = {
  async up(db) {
    await db.schema.createTable(OUTBOX_TABLE, (t) => {
      t.string('mail_key', 190).primary();
      t.string('recipient', 254).notNullable();
      t.string('subject', 300).notNullable();
      // The HTML is emptied once sent; the text stays for the mail log until the body retention ends, unless the mail
      // withholds it (a link that acts as its recipient must not outlive its delivery here; decision 1305).
      t.text('text_body').notNullable();
      t.text('html_body').notNullable();
      // Epoch milliseconds, as everywhere in the stores.
      t.bigInteger('created_at').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.bigInteger('next_attempt_at').notNullable();
      t.bigInteger('claimed_until').notNullable().defaultTo(0);
      t.string('claim_token', 32).nullable();
      t.bigInteger('sent_at').nullable();
      // The SMTP code or error name of the last failed attempt; never a server's text, which may quote addresses.
      t.string('last_error', 100).nullable();
      t.index(['sent_at', 'next_attempt_at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists(OUTBOX_TABLE);
  },
};

/** Records `mail` in the caller's transaction; a key already recorded is left as it is. */
export async function enqueueMail(trx: Knex | Knex.Transaction, mail: Mail, now: number): Promise<void> {
  await mailInsert(trx, mail, now);
}

/** The statement that queues a mail (a known key is dropped), for a caller that sends its statements in batches. */
export function mailInsert(trx: Knex | Knex.Transaction, mail: Mail, now: number): Knex.QueryBuilder {
  return trx(OUTBOX_TABLE)
    .insert({
      mail_key: mail.key,
      recipient: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      ...(mail.headers ? { headers_json: JSON.stringify(mail.headers) } : {}),
      ...(mail.withholdBody ? { withhold_body: true } : {}),
      created_at: now,
      next_attempt_at: now,
    })
    .onConflict('mail_key')
    .ignore();
}

/** A mail as a customer's data export lists it: what and when, never its body. */
export interface SentMailRecord {
  subject: string;
  /** Epoch milliseconds; sentAt absent while the mail waits. */
  createdAt: number;
  sentAt?: number;
}

/** Every mail queued for `recipients`, oldest first. */
export async function mailsTo(db: Knex, recipients: string[]): Promise<SentMailRecord[]> {
  if (recipients.length === 0) return [];
  const rows = await db(OUTBOX_TABLE)
    .whereIn('recipient', recipients)
    .orderBy('created_at', 'asc')
    .select('subject', 'created_at', 'sent_at');
  return rows.map((row: Record<string, unknown>) => ({
    subject: row.subject as string,
    createdAt: Number(row.created_at),
    ...(row.sent_at === null ? {} : { sentAt: Number(row.sent_at) }),
  }));
}

/** A mail record as the facades answer it: times in RFC 3339, sentAt empty while it waits. */
export function sentMailMessage(mail: SentMailRecord): { subject: string; createdAt: string; sentAt: string } {
  return {
    subject: mail.subject,
    createdAt: new Date(mail.createdAt).toISOString(),
    sentAt: mail.sentAt === undefined ? '' : new Date(mail.sentAt).toISOString(),
  };
}

/** What an erased recipient's sent mails say instead of the address and subject. */
export const ERASED_RECIPIENT = 'erased';

/**
 * Forgets the mails to `recipients` (an erasure): unsent ones are dropped, sent ones keep their key (so their event
 * cannot queue them again) and times, and lose the address, subject and bodies.
 */
export async function forgetRecipients(trx: Knex | Knex.Transaction, recipients: string[]): Promise<void> {
  if (recipients.length === 0) return;
  await trx(OUTBOX_TABLE).whereIn('recipient', recipients).whereNull('sent_at').delete();
  await trx(OUTBOX_TABLE)
    .whereIn('recipient', recipients)
    .update({ recipient: ERASED_RECIPIENT, subject: ERASED_RECIPIENT, text_body: '', html_body: '' });
}

/** The wait before attempt `attempts + 1`, after `attempts` failures: base, doubled each time, capped. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30), maxMs);
}

export class MailOutbox {
  constructor(private readonly db: Knex) {}

  /**
   * Claims up to `limit` due, unsent rows for `token` until `now + leaseMs`. Each row is taken by
   * a conditional update that only one sender's can match, so two senders racing for the same
   * rows each get only the rows they updated.
   */
  async claim(token: string, now: number, leaseMs: number, limit: number): Promise<ClaimedMail[]> {
    const due = await this.db(OUTBOX_TABLE)
      .whereNull('sent_at')
      .where('next_attempt_at', '<=', now)
      .where('claimed_until', '<', now)
      .orderBy('next_attempt_at', 'asc')
      // Mails queued together go in their keys' order (an event's mails numbered in the order they are due).
      .orderBy('mail_key', 'asc')
      .limit(limit)
      .pluck('mail_key');
    const claimed: string[] = [];
    for (const key of due as string[]) {
      const taken = await this.db(OUTBOX_TABLE)
        .where({ mail_key: key })
        .whereNull('sent_at')
        .where('claimed_until', '<', now)
        .update({ claimed_until: now + leaseMs, claim_token: token });
      if (taken === 1) claimed.push(key);
    }
    if (claimed.length === 0) return [];
    const rows = await this.db(OUTBOX_TABLE).whereIn('mail_key', claimed).where({ claim_token: token });
    return rows.map((row: Record<string, unknown>) => ({
      key: row.mail_key as string,
      to: row.recipient as string,
      subject: row.subject as string,
      text: row.text_body as string,
      html: row.html_body as string,
      ...(row.headers_json ? { headers: JSON.parse(row.headers_json as string) as Record<string, string> } : {}),
      attempts: Number(row.attempts),
      createdAt: Number(row.created_at),
    }));
  }

  /**
   * Records the delivery; the key stays, so the event cannot queue the mail again. The HTML body goes at once; the text
   * stays for the mail log's preview until the body retention ends, unless the mail withholds its body (decision 1305).
   */
  async markSent(key: string, token: string, now: number): Promise<void> {
    const sent = { sent_at: now, html_body: '', claim_token: null, claimed_until: 0, last_error: null };
    await this.db(OUTBOX_TABLE)
      .where({ mail_key: key, claim_token: token })
      .update({ ...sent, text_body: this.db.raw('CASE WHEN withhold_body THEN ? ELSE text_body END', ['']) });
  }

  /** Frees the row, whose attempt failed at `failedAt`, for another attempt at `retryAt`. */
  async markFailed(key: string, token: string, failedAt: number, retryAt: number, error: string): Promise<void> {
    await this.db(OUTBOX_TABLE)
      .where({ mail_key: key, claim_token: token })
      .update({
        attempts: this.db.raw('attempts + 1'),
        next_attempt_at: retryAt,
        last_failed_at: failedAt,
        claim_token: null,
        claimed_until: 0,
        last_error: error.slice(0, 100),
      });
  }

  /** How many mails wait to be sent, and since when the oldest has waited (undefined when none). */
  async backlog(): Promise<{ unsent: number; oldestCreatedAt?: number }> {
    const row = (await this.db(OUTBOX_TABLE)
      .whereNull('sent_at')
      .count({ unsent: '*' })
      .min({ oldest: 'created_at' })
      .first()) as { unsent: number | string; oldest: number | string | null } | undefined;
    const unsent = Number(row?.unsent ?? 0);
    return unsent === 0 || row?.oldest == null ? { unsent } : { unsent, oldestCreatedAt: Number(row.oldest) };
  }

  /** Deletes sent rows older than `before`; returns how many. */
  purgeSentBefore(before: number): Promise<number> {
    return this.db(OUTBOX_TABLE).whereNotNull('sent_at').where('sent_at', '<', before).del();
  }

  /** Empties the kept text of mails sent before `before` (the body retention); the rows stay. Returns how many. */
  dropBodiesSentBefore(before: number): Promise<number> {
    return this.db(OUTBOX_TABLE)
      .whereNotNull('sent_at')
      .where('sent_at', '<', before)
      .whereNot('text_body', '')
      .update({ text_body: '' });
  }
}
