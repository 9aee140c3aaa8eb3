/**
 * Marketing consent, apart from the account (docs/decisions/1241): each grant or withdrawal is a new row with the
 * wording's version and the time, so the history is kept. Unsubscribe links carry a token signed with a key kept in
 * identity's store (docs/decisions/1242): the account id and an HMAC of it, valid for as long as the key is, so a link
 * in an old mail still works and a forged or altered one is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Knex } from '@storefront/db';
import { invalidArgument } from '@storefront/errors';
import { MARKETING_CONSENT } from '@storefront/formats';
import { composeMail, type Mail, type MailContent } from '@storefront/outbox';

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
  private signingKey?: Promise<Buffer>;

  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
    private readonly publicBaseUrl: string,
  ) {}

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
    const token = `${userId}.${await this.sign(userId)}`;
    return `${this.publicBaseUrl.replace(/\/+$/, '')}/unsubscribe?token=${encodeURIComponent(token)}`;
  }

  /**
   * Withdraws consent for the account a token names: 400 `invalid_unsubscribe_token` when it is not one this shop
   * signed. Repeating it records nothing more while consent stays withdrawn.
   */
  async unsubscribe(token: string, accountExists: (userId: string) => Promise<boolean>): Promise<ConsentRecord> {
    const [userId, signature, ...rest] = token.split('.');
    const expected = userId ? Buffer.from(await this.sign(userId), 'base64url') : undefined;
    const given = Buffer.from(signature ?? '', 'base64url');
    const valid =
      rest.length === 0 &&
      expected !== undefined &&
      given.length === expected.length &&
      timingSafeEqual(given, expected) &&
      (await accountExists(userId!));
    if (!valid) throw invalidArgument('the unsubscribe link is not valid', 'invalid_unsubscribe_token');
    const current = await this.current(userId!);
    if (current && !current.granted) return current;
    return this.record(userId!, false, 'unsubscribe');
  }

  private async sign(userId: string): Promise<string> {
    this.signingKey ??= this.db('link_signing_keys')
      .where({ purpose: 'unsubscribe' })
      .first('secret')
      .then((row: { secret: string }) => Buffer.from(row.secret, 'hex'));
    return createHmac('sha256', await this.signingKey)
      .update(`unsubscribe:${userId}`)
      .digest('base64url');
  }
}

/**
 * A marketing mail: besides its content, the headers mail clients use to offer one-click unsubscribe (RFC 8058). Only
 * marketing mails are built here; order, dispatch, refund and account mails are not marketing and carry none.
 */
export function marketingMail(key: string, to: string, content: MailContent, unsubscribeUrl: string): Mail {
  const composed = composeMail({
    ...content,
    blocks: [...content.blocks, { link: { label: 'Unsubscribe from these emails', url: unsubscribeUrl } }],
  });
  return {
    key,
    to,
    ...composed,
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

function toRecord(row: Record<string, unknown>): ConsentRecord {
  return {
    granted: Boolean(row.granted),
    wordingVersion: row.wording_version as string,
    recordedAt: Number(row.recorded_at),
    source: row.source as ConsentSource,
  };
}
