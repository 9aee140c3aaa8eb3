/**
 * The customer's data rights, erasure (decision 1300): the account is closed at once, in one transaction (its row and
 * what hangs on it go, its mails lose their address and bodies, staff actions on it lose their records, its address is
 * free for a new sign-up) and a durable erasure is recorded. The edge drives that record through the other components;
 * once each confirmed, the final mail is queued in identity's outbox with the address, which the record then forgets;
 * once that mail is sent its row forgets the address too and the request is answered.
 */
import type { Knex } from '@storefront/db';
import { composeMail, enqueueMail, forgetRecipients, OUTBOX_TABLE } from '@storefront/outbox';
import type { StaffIdentity } from '@storefront/caller-token';
import { invalidArgument, notFound } from '@storefront/errors';
import { recordStaffAction, STAFF_ACTIONS_TABLE } from '@storefront/staff-audit';
import type { User, UserStore } from '../stores/users';
import { recordDataRequest } from './account-data';

/** The components whose part of an erasure identity waits for. */
export const ERASING_COMPONENTS = ['checkout', 'loyalty', 'inventory'] as const;
export type ErasingComponent = (typeof ERASING_COMPONENTS)[number];

/** The audit log's word for an owner closing a customer's account. */
export const CLOSED_BY_STAFF_ACTION = 'customer.account_closed';

export interface PendingErasure {
  accountId: string;
  checkoutErased: boolean;
  loyaltyErased: boolean;
  inventoryErased: boolean;
  /** The closed account's address, which inventory erases by; kept until every component has erased. */
  email: string;
}

const TABLE = 'account_erasures';

export class AccountErasures {
  constructor(
    private readonly db: Knex,
    private readonly users: UserStore,
  ) {}

  /** The console: an owner closes a customer's account, as the customer asked them. */
  async closeForStaff(accountId: string, staff: StaffIdentity, now: number): Promise<User> {
    const user = await this.users.findById(accountId);
    if (!user) throw notFound('No customer has that id; the account may be closed already', 'account_not_found');
    await this.close(user, now, staff);
    return user;
  }

  /**
   * Closes the account and records its erasure; the user row must have been read (and, for the customer, its password
   * checked). A staff member's closing is recorded in the audit log, naming the account by its id only.
   */
  async close(user: User, now: number, staff?: StaffIdentity): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx(TABLE)
        .insert({
          user_id: user.id,
          requested_at: now,
          requested_by: staff ? staff.role : 'customer',
          email: user.email,
        })
        .onConflict('user_id')
        .ignore();
      await recordDataRequest(trx, user.id, 'erasure', now, false);
      await forgetRecipients(trx, [user.email, ...(user.pendingEmail ? [user.pendingEmail] : [])]);
      await trx(STAFF_ACTIONS_TABLE).where({ subject: user.id }).update({ before_json: null, after_json: null });
      if (staff) await recordStaffAction(trx, staff, { action: CLOSED_BY_STAFF_ACTION, subject: user.id }, now);
      // Sessions, consents, reset and verification links go with the row (foreign keys); Redis sessions end at their
      // next look-up, which finds no account.
      await trx('users').where({ id: user.id }).delete();
    });
  }

  /** Erasures some component has still to confirm, or whose final mail is not yet queued, oldest first. */
  async pending(limit: number): Promise<PendingErasure[]> {
    const rows = await this.db(TABLE)
      .whereNull('final_mail_key')
      .orderBy('requested_at')
      .limit(limit)
      .select('user_id', 'checkout_erased_at', 'loyalty_erased_at', 'inventory_erased_at', 'email');
    return rows.map((row: Record<string, unknown>) => ({
      accountId: row.user_id as string,
      checkoutErased: row.checkout_erased_at !== null,
      loyaltyErased: row.loyalty_erased_at !== null,
      inventoryErased: row.inventory_erased_at !== null,
      email: (row.email as string | null) ?? '',
    }));
  }

  /**
   * Records that `component` erased the account; once every component has, queues the final mail and forgets the
   * address, in one transaction. Answers whether every component has confirmed.
   */
  async recordStep(accountId: string, component: string, now: number): Promise<boolean> {
    if (!(ERASING_COMPONENTS as readonly string[]).includes(component))
      throw invalidArgument(`component must be one of ${ERASING_COMPONENTS.join(', ')}`);
    return this.db.transaction(async (trx) => {
      await trx(TABLE)
        .where({ user_id: accountId })
        .whereNull(`${component}_erased_at`)
        .update({ [`${component}_erased_at`]: now });
      const row = await trx(TABLE).where({ user_id: accountId }).forUpdate().first();
      if (!row) throw invalidArgument('no erasure is recorded for that account', 'erasure_not_found');
      const done = ERASING_COMPONENTS.every((name) => row[`${name}_erased_at`] !== null);
      if (done && row.final_mail_key === null) {
        const key = `account-erased:${accountId}`;
        await enqueueMail(trx, { key, to: row.email as string, ...finalMail() }, now);
        await trx(TABLE).where({ user_id: accountId }).update({ email: null, final_mail_key: key });
      }
      return done;
    });
  }

  /**
   * Completes the erasures whose final mail was sent: its row forgets the address, and the data request is answered.
   * Conditional updates, so replicas passing at once complete each once.
   */
  async completeMailed(now: number, limit: number): Promise<number> {
    const rows = await this.db(TABLE)
      .join(OUTBOX_TABLE, `${OUTBOX_TABLE}.mail_key`, `${TABLE}.final_mail_key`)
      .whereNull(`${TABLE}.completed_at`)
      .whereNotNull(`${OUTBOX_TABLE}.sent_at`)
      .limit(limit)
      .select(`${TABLE}.user_id`, `${OUTBOX_TABLE}.recipient`);
    let completed = 0;
    for (const row of rows as Array<{ user_id: string; recipient: string }>) {
      completed += await this.db.transaction(async (trx) => {
        const taken = await trx(TABLE)
          .where({ user_id: row.user_id })
          .whereNull('completed_at')
          .update({ completed_at: now });
        if (taken === 0) return 0;
        await forgetRecipients(trx, [row.recipient]);
        await trx('data_requests')
          .where({ user_id: row.user_id, kind: 'erasure' })
          .whereNull('completed_at')
          .update({ completed_at: now });
        return 1;
      });
    }
    return completed;
  }
}

/** The last mail to the address: the erasure is done. It names nobody. */
function finalMail() {
  return composeMail({
    subject: 'Your account is closed',
    blocks: [
      {
        paragraph:
          'Your account at Storefront Research Supplies is closed and what identified you has been erased. ' +
          'We keep only what the law requires for the books (order totals and VAT records), under no name. ' +
          'This is the last mail we send to this address.',
      },
    ],
  });
}
