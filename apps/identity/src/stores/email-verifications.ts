/**
 * Identity's email_verifications table, and the writes a verification link makes in one transaction: the link recorded
 * with its mail; the link used, the address made the account's and verified, and the mails that follow queued.
 */
import { isUniqueViolation, type Knex } from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';

export interface EmailVerification {
  userId: string;
  /** The address the link was sent to. */
  email: string;
}

/** What using a link did: the address became the account's, or another account holds it now. */
export type VerificationOutcome = 'verified' | 'unusable' | 'email_taken';

export class EmailVerificationStore {
  constructor(private readonly db: Knex) {}

  /**
   * Records a link (by its token's hash) to `email` and queues its mail, voiding the account's earlier unused links; a
   * link to another address than the account's also becomes the account's pending email.
   */
  async record(
    link: EmailVerification & { tokenHash: string; now: number; expiresAt: number },
    mail: Mail,
    trx?: Knex.Transaction,
  ): Promise<void> {
    const write = async (t: Knex.Transaction) => {
      await t('email_verifications').where({ user_id: link.userId }).whereNull('used_at').update({ used_at: link.now });
      await t('email_verifications').insert({
        token_hash: link.tokenHash,
        user_id: link.userId,
        email: link.email,
        created_at: link.now,
        expires_at: link.expiresAt,
      });
      const user = await t('users').where({ id: link.userId }).first('email');
      if (user && user.email !== link.email)
        await t('users').where({ id: link.userId }).update({ pending_email: link.email });
      await enqueueMail(t, mail, link.now);
    };
    // Inside the sign-up's transaction, or a transaction of its own.
    if (trx) await write(trx);
    else await this.db.transaction(write);
  }

  /** The link a token names while it is unused and unexpired. */
  async findUsable(tokenHash: string, now: number): Promise<EmailVerification | undefined> {
    const row = await this.db('email_verifications')
      .where({ token_hash: tokenHash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .first('user_id', 'email');
    return row ? { userId: row.user_id as string, email: row.email as string } : undefined;
  }

  /**
   * Uses the link if it is still usable (a conditional update: of two uses at once only one matches), makes its address
   * the account's, verified now, voids the account's other links, and queues `mails`. When the address changed, the
   * account's unused password reset links are voided too: they went to the old address.
   */
  async complete(tokenHash: string, link: EmailVerification, now: number, mails: Mail[]): Promise<VerificationOutcome> {
    try {
      return await this.db.transaction(async (trx) => {
        const used = await trx('email_verifications')
          .where({ token_hash: tokenHash, user_id: link.userId })
          .whereNull('used_at')
          .where('expires_at', '>', now)
          .update({ used_at: now });
        if (used !== 1) return 'unusable';
        const before = await trx('users').where({ id: link.userId }).first('email');
        await trx('users')
          .where({ id: link.userId })
          .update({ email: link.email, email_verified_at: now, pending_email: null });
        await trx('email_verifications').where({ user_id: link.userId }).whereNull('used_at').update({ used_at: now });
        if (before && before.email !== link.email)
          await trx('password_resets').where({ user_id: link.userId }).whereNull('used_at').update({ used_at: now });
        for (const mail of mails) await enqueueMail(trx, mail, now);
        return 'verified';
      });
    } catch (error) {
      if (isUniqueViolation(error)) return 'email_taken';
      throw error;
    }
  }

  /** Deletes links that can no longer be used; returns how many. */
  purgeExpired(now: number): Promise<number> {
    return this.db('email_verifications').where('expires_at', '<=', now).del();
  }
}
