/**
 * Marketing consent, apart from the account (docs/decisions/1241): each grant or withdrawal is a new row with the
 * wording's version and the time, so the history is kept. Unsubscribe links carry a token signed with a key kept in
 * identity's store (docs/decisions/1242): the account id and an HMAC of it, valid for as long as the key is, so a link
 * in an old mail still works and a forged or altered one is refused.
 */
import type { Knex } from '@storefront/db';
import { invalidArgument } from '@storefront/errors';
import { MARKETING_CONSENT } from '@storefront/formats';
import { LinkSigner, unsubscribableMail } from '@storefront/outbox';

export type ConsentSource = 'signup' | 'account' | 'unsubscribe';

export interface ConsentRecord {
  granted: boolean;
  wordingVersion: string;
  /** Epoch milliseconds. */
  recordedAt: number;
  source: ConsentSource;
}

const TABLE = 'marketing_consents';

export class MarketingConsents {
  private readonly links: LinkSigner;

  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
    private readonly publicBaseUrl: string,
  ) {
    this.links = new LinkSigner(db, 'unsubscribe');
  }

  /** Adds a record under the current wording; in `trx` when it goes with another write (a sign-up). */
  async record(
    userId: string,
    granted: boolean,
    source: ConsentSource,
    trx: Knex | Knex.Transaction = this.db,
  ): Promise<ConsentRecord> {
    const record: ConsentRecord = {
      granted,
      wordingVersion: MARKETING_CONSENT.version,
      recordedAt: this.now(),
      source,
    };
    await trx(TABLE).insert({
      user_id: userId,
      granted,
      wording_version: record.wordingVersion,
      recorded_at: record.recordedAt,
      source,
    });
    return record;
  }

  /** The latest record, undefined when the customer was never asked. */
  async current(userId: string): Promise<ConsentRecord | undefined> {
    const [row] = await this.db(TABLE).where({ user_id: userId }).orderBy('id', 'desc').limit(1);
    return row ? toRecord(row) : undefined;
  }

  /** Every record, oldest first. */
  async history(userId: string): Promise<ConsentRecord[]> {
    const rows = await this.db(TABLE).where({ user_id: userId }).orderBy('id', 'asc');
    return rows.map(toRecord);
  }

  /** The one-click link of a marketing mail to this account. */
  async unsubscribeUrl(userId: string): Promise<string> {
    const token = await this.links.sign(userId);
    return `${this.publicBaseUrl.replace(/\/+$/, '')}/unsubscribe?token=${encodeURIComponent(token)}`;
  }

  /**
   * Withdraws consent for the account a token names: 400 `invalid_unsubscribe_token` when it is not one this shop
   * signed. Repeating it records nothing more while consent stays withdrawn.
   */
  async unsubscribe(token: string, accountExists: (userId: string) => Promise<boolean>): Promise<ConsentRecord> {
    const userId = await this.links.verify(token);
    if (userId === undefined || !(await accountExists(userId)))
      throw invalidArgument('the unsubscribe link is not valid', 'invalid_unsubscribe_token');
    const current = await this.current(userId);
    if (current && !current.granted) return current;
    return this.record(userId, false, 'unsubscribe');
  }
}

/**
 * A marketing mail: besides its content, the headers mail clients use to offer one-click unsubscribe (RFC 8058). Only
 * marketing mails are built here; order, dispatch, refund and account mails are not marketing and carry none.
 */
export const marketingMail = unsubscribableMail;

function toRecord(row: Record<string, unknown>): ConsentRecord {
  return {
    granted: Boolean(row.granted),
    wordingVersion: row.wording_version as string,
    recordedAt: Number(row.recorded_at),
    source: row.source as ConsentSource,
  };
}
