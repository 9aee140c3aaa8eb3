/** Identity's users table. Nothing outside this service reads it. */
import { dialectOf, isUniqueViolation, preparedRead, type Knex, type PreparedRead } from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  phone?: string;
  referralCode: string;
  referredBy?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Sessions created up to this millisecond (a password reset or change) are refused. */
  sessionsValidFrom?: number;
  /** When a link proved the email reaches the customer; absent until then (docs/decisions/1131). */
  emailVerifiedAt?: number;
  /** A new email asked for, counting only once its link is used. */
  pendingEmail?: string;
}

export interface ProfileChanges {
  firstName?: string;
  lastName?: string;
  /** null clears the phone number. */
  phone?: string | null;
}

/** Which unique column an insert collided on. */
export type InsertConflict = 'email' | 'referral_code';

export class UserStore {
  /** Every uncached session resolution and profile read: prepared below knex. */
  private readonly byId: PreparedRead<[id: string]>;
  /** Every login: prepared below knex too. */
  private readonly byEmail: PreparedRead<[email: string]>;

  constructor(private readonly db: Knex) {
    this.byId = preparedRead(db, (id: string) => db('users').where({ id }));
    this.byEmail = preparedRead(db, (email: string) => db('users').where({ email }));
  }

  async findById(id: string): Promise<User | undefined> {
    return toUser((await this.byId(id))[0]);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    return toUser((await this.byEmail(email))[0]);
  }

  /** The customer a referral code belongs to. */
  async findByReferralCode(code: string): Promise<Pick<User, 'id' | 'email'> | undefined> {
    return this.db('users').where({ referral_code: code }).first('id', 'email');
  }

  /**
   * Inserts the user, with whatever `alongside` writes in the same transaction (the verification
   * link and its mail), or reports which unique column was already taken.
   */
  async insert(user: User, alongside?: (trx: Knex.Transaction) => Promise<void>): Promise<InsertConflict | undefined> {
    try {
      await this.db.transaction(async (trx) => {
        await trx('users').insert({
          id: user.id,
          email: user.email,
          password_hash: user.passwordHash,
          first_name: user.firstName,
          last_name: user.lastName,
          phone: user.phone ?? null,
          referral_code: user.referralCode,
          referred_by: user.referredBy ?? null,
          created_at: user.createdAt,
        });
        await alongside?.(trx);
      });
      return undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // The error text names the index differently per backend; asking the table does not.
      return (await this.findByEmail(user.email)) ? 'email' : 'referral_code';
    }
  }

  async updateProfile(id: string, changes: ProfileChanges): Promise<void> {
    const columns: Record<string, string | null> = {};
    if (changes.firstName !== undefined) columns.first_name = changes.firstName;
    if (changes.lastName !== undefined) columns.last_name = changes.lastName;
    if (changes.phone !== undefined) columns.phone = changes.phone;
    if (Object.keys(columns).length > 0) await this.db('users').where({ id }).update(columns);
  }

  /**
   * A password changed by its owner: every session opened up to `now` ends, the account's unused reset links are
   * voided (they would undo the change), and the notice, if any, is queued.
   */
  async changePassword(id: string, passwordHash: string, now: number, notice?: Mail): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('users').where({ id }).update({ password_hash: passwordHash, sessions_valid_from: now });
      await trx('password_resets').where({ user_id: id }).whereNull('used_at').update({ used_at: now });
      if (notice) await enqueueMail(trx, notice, now);
    });
  }

  /**
   * Accounts whose first name, last name or whole name starts with `prefix` (lower case, LIKE wildcards escaped), by
   * name, at most `limit`: a scan of the names, which the console's occasional look-up affords.
   */
  async findByNamePrefix(prefix: string, limit: number): Promise<User[]> {
    const pattern = `${prefix.replace(/[!%_]/g, (char) => `!${char}`)}%`;
    const wholeName =
      dialectOf(this.db) === 'mysql'
        ? "lower(concat(??, ' ', ??)) like ? escape '!'"
        : "lower(?? || ' ' || ??) like ? escape '!'";
    const rows = await this.db('users')
      .where((q) =>
        q
          .whereRaw("lower(??) like ? escape '!'", ['first_name', pattern])
          .orWhereRaw("lower(??) like ? escape '!'", ['last_name', pattern])
          .orWhereRaw(wholeName, ['first_name', 'last_name', pattern]),
      )
      .orderBy(['last_name', 'first_name', 'email'])
      .limit(limit);
    return rows.map((row: Record<string, unknown>) => toUser(row)!);
  }

  /** Accounts made in [from, until), newest first, after the position given (exclusive). */
  async createdBetween(
    from: number,
    until: number,
    limit: number,
    after?: { createdAt: number; id: string },
  ): Promise<User[]> {
    const rows = await this.db('users')
      .where('created_at', '>=', from)
      .where('created_at', '<', until)
      .modify((q) => {
        if (after)
          q.where((w) =>
            w
              .where('created_at', '<', after.createdAt)
              .orWhere((same) => same.where('created_at', after.createdAt).where('id', '<', after.id)),
          );
      })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    return rows.map((row: Record<string, unknown>) => toUser(row)!);
  }

  async updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db('users').where({ id }).update({ password_hash: passwordHash });
  }
}

function toUser(row: Record<string, unknown> | undefined): User | undefined {
  if (!row) return undefined;
  return {
    id: row.id as string,
    email: row.email as string,
    passwordHash: row.password_hash as string,
    firstName: row.first_name as string,
    lastName: row.last_name as string,
    ...(row.phone ? { phone: row.phone as string } : {}),
    referralCode: row.referral_code as string,
    ...(row.referred_by ? { referredBy: row.referred_by as string } : {}),
    createdAt: Number(row.created_at),
    ...(row.sessions_valid_from != null ? { sessionsValidFrom: Number(row.sessions_valid_from) } : {}),
    ...(row.email_verified_at != null ? { emailVerifiedAt: Number(row.email_verified_at) } : {}),
    ...(row.pending_email ? { pendingEmail: row.pending_email as string } : {}),
  };
}
