/**
 * Identity's password_resets table, and the writes a reset makes with it in one transaction:
 * the token recorded with its mail; the token used, the password changed, every session ended
 * and the notice queued.
 */
import type { Knex } from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';

export interface PasswordReset {
  userId: string;
  expiresAt: number;
}

export class PasswordResetStore {
  constructor(private readonly db: Knex) {}

  /** Records a reset token (by its hash) and queues the mail carrying its link. */
  async record(userId: string, tokenHash: string, now: number, expiresAt: number, mail: Mail): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('password_resets').insert({
        token_hash: tokenHash,
        user_id: userId,
        created_at: now,
        expires_at: expiresAt,
      });
      await enqueueMail(trx, mail, now);
    });
  }

  /** The reset a token names while it is unused and unexpired. */
  async findUsable(tokenHash: string, now: number): Promise<PasswordReset | undefined> {
    const row = await this.db('password_resets')
      .where({ token_hash: tokenHash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .first('user_id', 'expires_at');
    return row ? { userId: row.user_id as string, expiresAt: Number(row.expires_at) } : undefined;
  }

  /**
   * Uses the token, if it is still unused and unexpired (a conditional update: of two uses at once
   * only one matches), and then sets the password, ends every session from before `now`, voids
   * the account's other reset tokens and queues the notice. False when the token was not usable.
   */
  async complete(tokenHash: string, userId: string, passwordHash: string, now: number, notice: Mail): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const used = await trx('password_resets')
        .where({ token_hash: tokenHash, user_id: userId })
        .whereNull('used_at')
        .where('expires_at', '>', now)
        .update({ used_at: now });
      if (used !== 1) return false;
      await trx('users').where({ id: userId }).update({ password_hash: passwordHash, sessions_valid_from: now });
      await trx('password_resets').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
      await enqueueMail(trx, notice, now);
      return true;
    });
  }

  /** Deletes resets that can no longer be used; returns how many. */
  purgeExpired(now: number): Promise<number> {
    return this.db('password_resets').where('expires_at', '<=', now).del();
  }
}
