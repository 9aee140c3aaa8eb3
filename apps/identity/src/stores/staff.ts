/**
 * Identity's staff tables: the console's accounts, their recovery codes and the audit log. Nothing outside this service
 * reads them. Every change to an account is recorded in the audit log in the change's own transaction.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { forUpdate, isUniqueViolation, type Knex } from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';
import { STAFF_ACTIONS_TABLE, recordStaffAction, type StaffActionRecord } from '@storefront/staff-audit';

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
  /** The SHA-256 of the binding cookie of the browser that opened the set-up link first. */
  setupBrowserHash?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  disabledAt?: number;
  /** Sessions created at or before this moment are ended (a reset, a completed set-up, re-enabling). */
  sessionsValidFrom?: number;
}

/** The audit log's records of a member's own successful logins. */
export const STAFF_LOGIN_ACTIONS = ['login', 'login_recovery_code'];

export interface StaffWithLastLogin {
  member: StaffMember;
  /** Epoch milliseconds; absent when no login is recorded (none yet, or its record is past retention). */
  lastLoginAt?: number;
}

/** What disabling a member did. */
export type DisableOutcome = 'disabled' | 'already_disabled' | 'last_owner';

/** Who changed an account, and what the audit log says of it. */
export interface StaffChange {
  actor: StaffIdentity;
  record: StaffActionRecord;
  at: number;
}

/** What a new set-up link replaces: the password, the second factor, the recovery codes and every session. */
const CLEARED_CREDENTIALS = {
  password_hash: null,
  totp_secret: null,
  totp_last_step: null,
  setup_totp_secret: null,
  setup_browser_hash: null,
};

export class StaffStore {
  constructor(readonly db: Knex) {}

  async findById(id: string): Promise<StaffMember | undefined> {
    return toStaff(await this.db('staff').where({ id }).first());
  }

  async findByEmail(email: string): Promise<StaffMember | undefined> {
    return toStaff(await this.db('staff').where({ email }).first());
  }

  /** Every member by email, with their latest login in the audit log (its subject is the member's email). */
  async listWithLastLogin(): Promise<StaffWithLastLogin[]> {
    const members = (await this.db('staff').orderBy('email')).map((row) => toStaff(row)!);
    const logins: Array<{ subject: string; last: unknown }> = members.length
      ? await this.db(STAFF_ACTIONS_TABLE)
          .whereIn(
            'subject',
            members.map((member) => member.email),
          )
          .whereIn('action', STAFF_LOGIN_ACTIONS)
          .groupBy('subject')
          .select('subject')
          .max({ last: 'at' })
      : [];
    const lastLogins = new Map(logins.map(({ subject, last }) => [subject, Number(last)]));
    return members.map((member) => ({ member, lastLoginAt: lastLogins.get(member.email) }));
  }

  async findBySetupToken(tokenHash: string): Promise<StaffMember | undefined> {
    return toStaff(await this.db('staff').where({ setup_token_hash: tokenHash }).first());
  }

  /** Inserts a new member with a set-up token; false when the email is taken. */
  async insert(member: StaffMember, setupTokenHash: string, change: StaffChange): Promise<boolean> {
    try {
      await this.db.transaction(async (trx) => {
        await trx('staff').insert({
          id: member.id,
          email: member.email,
          role: member.role,
          setup_token_hash: setupTokenHash,
          setup_expires_at: member.setupExpiresAt,
          created_at: member.createdAt,
        });
        await recordChange(trx, change);
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /**
   * A fresh set-up link for an active member (lost link, lost authenticator, suspected theft): the old link, password,
   * second factor, recovery codes and sessions stop working; false when the member was disabled meanwhile.
   */
  async resetCredentials(id: string, setupTokenHash: string, expiresAt: number, change: StaffChange): Promise<boolean> {
    return this.changeWithAudit(change, (trx) =>
      clearCredentials(trx, id, resetColumns(setupTokenHash, expiresAt, change.at), (query) =>
        query.whereNull('disabled_at'),
      ),
    );
  }

  /** Enables a disabled member again with a fresh set-up link and nothing of their old credentials or sessions. */
  async reenable(id: string, setupTokenHash: string, expiresAt: number, change: StaffChange): Promise<boolean> {
    return this.changeWithAudit(change, (trx) =>
      clearCredentials(trx, id, { ...resetColumns(setupTokenHash, expiresAt, change.at), disabled_at: null }, (query) =>
        query.whereNotNull('disabled_at'),
      ),
    );
  }

  /** Binds the set-up link to the first browser that opens it; whether `browserHash` is (now) that browser. */
  async bindSetupBrowser(id: string, browserHash: string): Promise<boolean> {
    await this.db('staff').where({ id }).whereNull('setup_browser_hash').update({ setup_browser_hash: browserHash });
    return (await this.findById(id))?.setupBrowserHash === browserHash;
  }

  /** Offers `secret` unless one is offered already (two tabs at once); the one offered. */
  async offerTotpSecret(id: string, secret: string): Promise<string | undefined> {
    await this.db('staff').where({ id }).whereNull('setup_totp_secret').update({ setup_totp_secret: secret });
    return (await this.findById(id))?.setupTotpSecret;
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
    change: StaffChange,
  ): Promise<boolean> {
    return this.changeWithAudit(change, async (trx) => {
      const updated = await trx('staff').where({ id, setup_token_hash: tokenHash }).update({
        password_hash: credentials.passwordHash,
        totp_secret: credentials.totpSecret,
        totp_last_step: credentials.totpStep,
        setup_token_hash: null,
        setup_expires_at: null,
        setup_totp_secret: null,
        setup_browser_hash: null,
        sessions_valid_from: change.at,
      });
      if (updated === 0) return 0;
      await trx('staff_recovery_codes').where({ staff_id: id }).del();
      await trx('staff_recovery_codes').insert(recoveryCodeHashes.map((code_hash) => ({ code_hash, staff_id: id })));
      return updated;
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

  /**
   * Disables the member unless they are disabled already or are the last owner not disabled; the owners are locked
   * while counted, so two owners disabling each other at once leave one of them.
   */
  async disable(member: StaffMember, change: StaffChange): Promise<DisableOutcome> {
    return this.db.transaction(async (trx) => {
      if (member.role === 'owner') {
        const owners: Array<{ id: string }> = await forUpdate(
          trx('staff').where({ role: 'owner' }).whereNull('disabled_at').select('id'),
          this.db,
        );
        if (owners.length > 0 && owners.every(({ id }) => id === member.id)) return 'last_owner';
      }
      const updated = await trx('staff')
        .where({ id: member.id })
        .whereNull('disabled_at')
        .update({ disabled_at: change.at });
      if (updated === 0) return 'already_disabled';
      await recordChange(trx, change);
      return 'disabled';
    });
  }

  /** Records what happened without changing an account: a login, a refusal, a logout. */
  async appendAudit(change: StaffChange): Promise<void> {
    await recordChange(this.db, change);
  }

  /** Runs `update` and, when it changed a row, records `change` in the same transaction; whether it did. */
  private changeWithAudit(change: StaffChange, update: (trx: Knex.Transaction) => Promise<number>): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      if ((await update(trx)) === 0) return false;
      await recordChange(trx, change);
      return true;
    });
  }
}

/** The member as the audit log names them when they act themselves (a login, a completed set-up). */
export function selfActor(member: StaffMember, clientAddress: string): StaffIdentity {
  return { id: member.id, role: member.role, email: member.email, clientAddress };
}

function recordChange(trx: Knex | Knex.Transaction, { actor, record, at }: StaffChange): Promise<number> {
  return recordStaffAction(trx, actor, record, at);
}

/** Updates the member's row where `condition` holds and, if it did, deletes their recovery codes; rows updated. */
async function clearCredentials(
  trx: Knex.Transaction,
  id: string,
  columns: Record<string, unknown>,
  condition: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<number> {
  const updated = await condition(trx('staff').where({ id })).update(columns);
  if (updated > 0) await trx('staff_recovery_codes').where({ staff_id: id }).del();
  return updated;
}

function resetColumns(setupTokenHash: string, expiresAt: number, at: number) {
  return {
    ...CLEARED_CREDENTIALS,
    setup_token_hash: setupTokenHash,
    setup_expires_at: expiresAt,
    sessions_valid_from: at,
  };
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
    setupBrowserHash: optionalString(row.setup_browser_hash),
    createdAt: Number(row.created_at),
    disabledAt: optionalNumber(row.disabled_at),
    sessionsValidFrom: optionalNumber(row.sessions_valid_from),
  };
}
