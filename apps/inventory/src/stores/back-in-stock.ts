/**
 * Back-in-stock subscriptions and their mails, in inventory's store. A mail is queued in the transaction that moves
 * its subscription on (pending mailed its confirmation, active → mailed), under a key per subscription, so a repeated
 * event or a second replica never mails twice. The alert pass locks the size's stock row first, which serialises
 * replicas on a size, then takes each active subscription by a conditional update (decision 1341).
 */
import { BACK_IN_STOCK_CONSENT } from '@storefront/formats';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { forUpdate, isUniqueViolation, retryOnDeadlock, type Knex } from '@storefront/db';
import { LinkSigner, enqueueMail, forgetRecipients } from '@storefront/outbox';
import type { BatchStock } from './batch-stock';
import {
  CONFIRM_LINK_LIFETIME_MS,
  SUBSCRIPTION_LIFETIME_MS,
  alertMail,
  confirmPayload,
  confirmationMail,
  readPayload,
  subscriberEmail,
  unsubscribePayload,
  type SubscribedSize,
  type Subscription,
  type SubscriptionState,
} from '../domain/back-in-stock';

const TABLE = 'back_in_stock_subscriptions';
/** Subscriptions mailed in one transaction; a size with more is worked through in several. */
const ALERT_BATCH = 100;

export type SubscribeOutcome = 'subscribed' | 'pending' | 'already_subscribed' | 'already_pending';

export interface SubscribeRequest {
  email: string;
  sku: string;
  /** The gateway vouches for the address (a signed-in customer's own): active at once, no confirmation. */
  verified: boolean;
}

export class BackInStockStore {
  private readonly links: LinkSigner;

  constructor(
    private readonly db: Knex,
    private readonly stock: BatchStock,
    private readonly publicBaseUrl: string,
    private readonly mailQueued: () => void,
  ) {
    this.links = new LinkSigner(db, 'back-in-stock');
  }

  private now(): number {
    return this.stock.now();
  }

  /**
   * Subscribes the address to a sold-out, stock-limited size; a repeat while the subscription stands changes nothing
   * and says so. A guest's subscription is pending, and its confirmation mail is queued with it.
   */
  async subscribe({
    email: rawEmail,
    sku,
    verified,
  }: SubscribeRequest): Promise<{ outcome: SubscribeOutcome; subscription: Subscription }> {
    const email = subscriberEmail(rawEmail);
    const attempt = () =>
      this.db.transaction(async (trx) => {
        const size = await sizeOf(trx, sku);
        const count = await this.stock.lockCount(trx, sku);
        if (!count) throw conflict('size_not_stock_limited', `${sku} is never sold out`);
        if (count.onHand - count.reserved > 0) throw conflict('size_in_stock', `${sku} is in stock: order it now`);
        const now = this.now();
        const existing = await forUpdate(trx(TABLE).where({ email, sku }).first(), this.db);
        const current = existing ? toSubscription(existing) : undefined;
        const standing =
          current && (current.state === 'pending' || current.state === 'active') && current.expiresAt > now;
        if (standing && (current.state === 'active' || !verified)) {
          return {
            outcome: current.state === 'active' ? 'already_subscribed' : 'already_pending',
            subscription: current,
          } as const;
        }
        const state: SubscriptionState = verified ? 'active' : 'pending';
        const fields = {
          state,
          consent_version: BACK_IN_STOCK_CONSENT.version,
          created_at: now,
          confirmed_at: verified ? now : null,
          mailed_at: null,
          expires_at: now + SUBSCRIPTION_LIFETIME_MS,
        };
        if (current) await trx(TABLE).where({ id: current.id }).update(fields);
        else await trx(TABLE).insert({ email, sku, ...fields });
        const subscription = toSubscription(await trx(TABLE).where({ email, sku }).first());
        if (!verified) {
          await enqueueMail(
            trx,
            confirmationMail(subscription, size, {
              base: this.publicBaseUrl,
              confirmToken: await this.links.sign(confirmPayload(subscription), trx),
              unsubscribeToken: await this.links.sign(unsubscribePayload(subscription), trx),
            }),
            now,
          );
        }
        return { outcome: verified ? 'subscribed' : 'pending', subscription } as const;
      });
    const result = await retryOnDeadlock(async () => {
      try {
        return await attempt();
      } catch (error) {
        // Two first subscriptions of one address at once: the loser finds the winner's row on its second try.
        if (isUniqueViolation(error)) return attempt();
        throw error;
      }
    });
    if (result.outcome === 'pending') this.mailQueued();
    return result;
  }

  /** A guest's confirmation link: the subscription becomes active; a repeat is answered the same. */
  async confirm(token: string): Promise<Subscription> {
    const named = readPayload((await this.links.verify(token)) ?? '', 'confirm');
    if (!named) throw invalidArgument('the confirmation link is not valid', 'invalid_back_in_stock_link');
    const now = this.now();
    if (named.createdAt! + CONFIRM_LINK_LIFETIME_MS <= now)
      throw invalidArgument(
        'the confirmation link has expired: ask again on the product page',
        'back_in_stock_link_expired',
      );
    return this.db.transaction(async (trx) => {
      const row = await forUpdate(trx(TABLE).where({ id: named.id, created_at: named.createdAt }).first(), this.db);
      if (!row) throw notFound('this alert no longer exists', 'back_in_stock_not_found');
      const subscription = toSubscription(row);
      if (subscription.state !== 'pending') return subscription;
      if (subscription.expiresAt <= now) throw notFound('this alert has ended', 'back_in_stock_not_found');
      await trx(TABLE).where({ id: named.id }).update({ state: 'active', confirmed_at: now });
      return { ...subscription, state: 'active', confirmedAt: now };
    });
  }

  /** An unsubscribe link (a POST, no session): the subscription ends; a repeat is answered the same. */
  async unsubscribe(token: string): Promise<Subscription> {
    const named = readPayload((await this.links.verify(token)) ?? '', 'end');
    if (!named) throw invalidArgument('the unsubscribe link is not valid', 'invalid_back_in_stock_link');
    return this.db.transaction(async (trx) => {
      const row = await forUpdate(trx(TABLE).where({ id: named.id }).first(), this.db);
      if (!row) throw notFound('this alert no longer exists', 'back_in_stock_not_found');
      await trx(TABLE).where({ id: named.id }).update({ state: 'ended' });
      return { ...toSubscription(row), state: 'ended' };
    });
  }

  /**
   * Ends subscriptions past their 90 days, then mails every active subscriber of each size that has units available,
   * oldest subscription first, once (decision 1340). Returns how many were mailed.
   */
  async alert(): Promise<number> {
    const now = this.now();
    await this.db(TABLE)
      .whereIn('state', ['pending', 'active'])
      .where('expires_at', '<=', now)
      .update({ state: 'ended' });
    // Without a lock, the sizes whose count shows units: a sold-out size is passed over at no cost on every tick, and
    // the count is checked again under its lock (it may include a batch past its retest day).
    const waiting = (
      await this.db(TABLE)
        .join('stock', 'stock.sku', `${TABLE}.sku`)
        .where(`${TABLE}.state`, 'active')
        .whereRaw('?? > ??', ['stock.on_hand', 'stock.reserved'])
        .distinct(`${TABLE}.sku as sku`)
    ).map((row: { sku: string }) => row.sku);
    let mailed = 0;
    for (const sku of waiting) {
      for (;;) {
        const count = await retryOnDeadlock(() => this.alertBatch(sku));
        mailed += count;
        if (count < ALERT_BATCH) break;
      }
    }
    if (mailed > 0) this.mailQueued();
    return mailed;
  }

  private alertBatch(sku: string): Promise<number> {
    return this.db.transaction(async (trx) => {
      const count = await this.stock.lockCount(trx, sku);
      if (!count || count.onHand - count.reserved <= 0) return 0;
      const now = this.now();
      const size = await sizeOf(trx, sku);
      const rows = await trx(TABLE)
        .where({ sku, state: 'active' })
        .where('expires_at', '>', now)
        .orderBy('id', 'asc')
        .limit(ALERT_BATCH);
      let mailed = 0;
      for (const row of rows) {
        const subscription = toSubscription(row);
        const taken = await trx(TABLE)
          .where({ id: subscription.id, state: 'active' })
          .update({ state: 'mailed', mailed_at: now });
        if (taken !== 1) continue;
        const links = {
          base: this.publicBaseUrl,
          unsubscribeToken: await this.links.sign(unsubscribePayload(subscription), trx),
        };
        await enqueueMail(trx, alertMail(subscription, size, links), now);
        mailed += 1;
      }
      return mailed;
    });
  }

  /** Every subscription of a size, oldest first (tests, operators). */
  /** A person's data rights: every subscription of the address, oldest first. */
  async ofEmail(rawEmail: string): Promise<Subscription[]> {
    const email = subscriberEmail(rawEmail);
    return (await this.db(TABLE).where({ email }).orderBy('id', 'asc')).map(toSubscription);
  }

  /**
   * A person's data rights, erasure (decision 1343): the address's subscriptions go, and the mails sent to it lose
   * their address and bodies; the same again erases nothing more.
   */
  async erase(rawEmail: string): Promise<number> {
    const email = subscriberEmail(rawEmail);
    return this.db.transaction(async (trx) => {
      const erased = await trx(TABLE).where({ email }).delete();
      await forgetRecipients(trx, [email]);
      return erased;
    });
  }

  async ofSku(sku: string): Promise<Subscription[]> {
    return (await this.db(TABLE).where({ sku }).orderBy('id', 'asc')).map(toSubscription);
  }
}

async function sizeOf(db: Knex | Knex.Transaction, sku: string): Promise<SubscribedSize> {
  const row = await db('product_sizes')
    .join('products', 'products.id', 'product_sizes.product_id')
    .where('product_sizes.sku', sku)
    .first('products.id as product_id', 'products.name as product_name', 'product_sizes.size as size');
  if (!row) throw notFound(`there is no size ${sku}`, 'unknown_sku');
  return { productId: row.product_id, productName: row.product_name, size: row.size };
}

function toSubscription(row: Record<string, unknown>): Subscription {
  const optional = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));
  const confirmedAt = optional(row.confirmed_at);
  const mailedAt = optional(row.mailed_at);
  return {
    id: Number(row.id),
    email: row.email as string,
    sku: row.sku as string,
    state: row.state as SubscriptionState,
    consentVersion: row.consent_version as string,
    createdAt: Number(row.created_at),
    ...(confirmedAt === undefined ? {} : { confirmedAt }),
    ...(mailedAt === undefined ? {} : { mailedAt }),
    expiresAt: Number(row.expires_at),
  };
}
