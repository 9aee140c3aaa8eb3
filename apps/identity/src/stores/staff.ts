/**
 * Identity's staff tables: the console's accounts, their recovery codes and the audit log. Nothing outside this service
 * reads them.
 */
import { isUniqueViolation, type Knex } from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';
import { recordStaffAction } from '@storefront/staff-audit';

export const STAFF_ROLES = ['owner', 'staff'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export interface StaffMember {
  id: string;
  email: string;
  role: StaffRole;
  passwordHash?: string;
  totpSecret?: string;
  totpLastStep?: number;
  setupExpiresAt?: number;
  setupTotpSecret?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  disabledAt?: number;
}

export class StaffStore {
  constructor(readonly db: Knex) {}

  async findById(id: string): Promise<StaffMember | undefined> {
    return toStaff(await this.db('staff').where({ id }).first());
  }

  async findByEmail(email: string): Promise<StaffMember | undefined> {
    return toStaff(await this.db('staff').where({ email }).first());
  }

  async findBySetupToken(tokenHash: string): Promise<StaffMember | undefined> {
    return toStaff(await this.db('staff').where({ setup_token_hash: tokenHash }).first());
  }

  /** Inserts a new member with a set-up token; false when the email is taken. */
  async insert(member: StaffMember, setupTokenHash: string): Promise<boolean> {
    try {
      await this.db('staff').insert({
        id: member.id,
        email: member.email,
        role: member.role,
        setup_token_hash: setupTokenHash,
        setup_expires_at: member.setupExpiresAt,
        created_at: member.createdAt,
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** A fresh set-up link for an existing member (lost or expired link); the old one stops working. */
  async replaceSetupToken(id: string, setupTokenHash: string, expiresAt: number): Promise<void> {
    await this.db('staff')
      .where({ id })
      .update({ setup_token_hash: setupTokenHash, setup_expires_at: expiresAt, setup_totp_secret: null });
  }

  async offerTotpSecret(id: string, secret: string): Promise<void> {
    await this.db('staff').where({ id }).update({ setup_totp_secret: secret });
  }

  /**
   * Sets the password and second factor and spends the set-up token, in one transaction with
   * the new recovery codes; false when the token was spent meanwhile (a second tab).
   */
  async completeSetup(
    id: string,
    tokenHash: string,
    credentials: { passwordHash: string; totpSecret: string; totpStep: number },
    recoveryCodeHashes: string[],
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('staff').where({ id, setup_token_hash: tokenHash }).update({
        password_hash: credentials.passwordHash,
        totp_secret: credentials.totpSecret,
        totp_last_step: credentials.totpStep,
        setup_token_hash: null,
        setup_expires_at: null,
        setup_totp_secret: null,
      });
      if (updated === 0) return false;
      await trx('staff_recovery_codes').where({ staff_id: id }).del();
      await trx('staff_recovery_codes').insert(recoveryCodeHashes.map((code_hash) => ({ code_hash, staff_id: id })));
      return true;
    });
  }

  /** Records the time step of an accepted code, unless that step (or a later one) was used already: false then. */
  async spendTotpStep(id: string, step: number): Promise<boolean> {
    const updated = await this.db('staff')
      .where({ id })
      .andWhere((query) => query.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
      .update({ totp_last_step: step });
    return updated > 0;
  }

  /** Deletes the recovery code if it is the member's; whether it was (each works once). */
  async spendRecoveryCode(id: string, codeHash: string): Promise<boolean> {
    return (await this.db('staff_recovery_codes').where({ staff_id: id, code_hash: codeHash }).del()) > 0;
  }

  async updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db('staff').where({ id }).update({ password_hash: passwordHash });
  }

  /** Queues a mail to a member in identity's outbox; a mail whose key was queued before is dropped. */
  async queueMail(mail: Mail, at: number): Promise<void> {
    await enqueueMail(this.db, mail, at);
  }

  /** Whether the member was active until now. */
  async disable(id: string, at: number): Promise<boolean> {
    return (await this.db('staff').where({ id }).whereNull('disabled_at').update({ disabled_at: at })) > 0;
  }

  /** Records a login, failed login or logout of `member` in the staff audit log. */
  async appendAudit(member: StaffMember, action: string, clientAddress: string, at: number): Promise<void> {
    await recordStaffAction(
      this.db,
      { id: member.id, role: member.role, email: member.email, clientAddress },
      { action, subject: member.email },
      at,
    );
  }
}

function toStaff(row: Record<string, unknown> | undefined): StaffMember | undefined {
  if (!row) return undefined;
  const optionalNumber = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));
  const optionalString = (value: unknown) => (value === null || value === undefined ? undefined : (value as string));
  return {
    id: row.id as string,
    email: row.email as string,
    role: row.role as StaffRole,
    passwordHash: optionalString(row.password_hash),
    totpSecret: optionalString(row.totp_secret),
    totpLastStep: optionalNumber(row.totp_last_step),
    setupExpiresAt: optionalNumber(row.setup_expires_at),
    setupTotpSecret: optionalString(row.setup_totp_secret),
    createdAt: Number(row.created_at),
    disabledAt: optionalNumber(row.disabled_at),
  };
}
