/**
 * Links in mails that act without a session (unsubscribe, confirm): `<payload>.<HMAC-SHA256 of "<purpose>:<payload>">`,
 * keyed by a random secret a component's migration makes once in its own store (`link_signing_keys`), so every
 * replica shares it and a link stays valid for as long as a mail may be read (decision 1242). A forged or altered
 * link is refused in constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from '@storefront/db';
import { composeMail, type MailContent } from './compose';
import type { Mail } from './outbox';

export const LINK_SIGNING_KEYS_TABLE = 'link_signing_keys';

/** Makes the keys table, if missing, and a key for `purpose`; run by the migration that first signs such links. */
export async function createLinkSigningKey(db: Knex, purpose: string): Promise<void> {
  if (!(await db.schema.hasTable(LINK_SIGNING_KEYS_TABLE))) {
    await db.schema.createTable(LINK_SIGNING_KEYS_TABLE, (t) => {
      t.string('purpose', 40).primary();
      t.string('secret', 64).notNullable();
    });
  }
  await db(LINK_SIGNING_KEYS_TABLE).insert({ purpose, secret: randomBytes(32).toString('hex') });
}

export class LinkSigner {
  private key?: Promise<Buffer>;

  constructor(
    private readonly db: Knex,
    private readonly purpose: string,
  ) {}

  /** The token for `payload`; `trx` reads the key when the signing happens inside a transaction. */
  async sign(payload: string, trx: Knex | Knex.Transaction = this.db): Promise<string> {
    return `${payload}.${(await this.mac(payload, trx)).toString('base64url')}`;
  }

  /** The payload a token this key signed carries, or undefined for anything else. */
  async verify(token: string): Promise<string | undefined> {
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = await this.mac(payload, this.db);
    return given.length === expected.length && timingSafeEqual(given, expected) ? payload : undefined;
  }

  private async mac(payload: string, db: Knex | Knex.Transaction): Promise<Buffer> {
    this.key ??= db(LINK_SIGNING_KEYS_TABLE)
      .where({ purpose: this.purpose })
      .first('secret')
      .then((row: { secret: string }) => Buffer.from(row.secret, 'hex'));
    return createHmac('sha256', await this.key)
      .update(`${this.purpose}:${payload}`)
      .digest();
  }
}

/** The headers mail clients use to offer one-click unsubscribe (RFC 8058). */
export function oneClickUnsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/** A mail a person may stop in one click: the link at its end and the RFC 8058 headers naming it. */
export function unsubscribableMail(key: string, to: string, content: MailContent, unsubscribeUrl: string): Mail {
  const composed = composeMail({
    ...content,
    blocks: [...content.blocks, { link: { label: 'Unsubscribe from these emails', url: unsubscribeUrl } }],
  });
  return { key, to, ...composed, headers: oneClickUnsubscribeHeaders(unsubscribeUrl) };
}
