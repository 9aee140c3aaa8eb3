/**
 * Who may use the console: an owner (from the console, or an operator from the ops command line) adds staff members
 * (each gets a one-time set-up link), resets their credentials, disables them and re-enables them; any staff member
 * lists them. Every change is recorded in the audit log under whoever made it, in the change's transaction; so is a
 * refusal by role. 400 for a bad email or role, 403 for a member who is not an owner, 404 for an unknown member, 409
 * for a taken email, a member not in the state the change needs, or a disabling that would leave no owner.
 */
import { randomUUID } from 'node:crypto';
import type { StaffIdentity } from '@storefront/caller-token';
import { AppError, conflict, invalidArgument, notFound } from '@storefront/errors';
import type { StaffActionRecord } from '@storefront/staff-audit';
import {
  STAFF_ROLES,
  type StaffChange,
  type StaffMember,
  type StaffRole,
  type StaffStore,
  type StaffWithLastLogin,
} from '../stores/staff';
import { normaliseEmail } from './rules';
import { newSessionToken } from './session-tokens';
import { sha256 } from './staff-accounts';

export const SETUP_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

export function parseStaffRole(raw: string): StaffRole {
  if (!(STAFF_ROLES as readonly string[]).includes(raw))
    throw invalidArgument(`role must be one of ${STAFF_ROLES.join(', ')}`);
  return raw as StaffRole;
}

/** A member and the token of their new one-time set-up link (printed or shown once; only its hash is kept). */
export interface IssuedSetup {
  member: StaffMember;
  setupToken: string;
}

/** Where a member stands: able to log in, not yet set up (a new member or a reset), or disabled. */
export type StaffState = 'active' | 'setup_pending' | 'disabled';

export function staffStateOf(member: StaffMember): StaffState {
  if (member.disabledAt !== undefined) return 'disabled';
  return member.passwordHash === undefined ? 'setup_pending' : 'active';
}

export class StaffRoster {
  constructor(
    private readonly staff: StaffStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every member, by email, with their last login while the login records keep it. */
  list(): Promise<StaffWithLastLogin[]> {
    return this.staff.listWithLastLogin();
  }

  /** A new member and their set-up link, for an owner only; 409 when the email is already staff. */
  async add(rawEmail: string, role: StaffRole, actor: StaffIdentity): Promise<IssuedSetup> {
    const email = normaliseEmail(rawEmail);
    await this.requireOwner(actor, email, 'staff_added', 'add a staff member');
    const at = this.now();
    const setupToken = newSessionToken();
    const member: StaffMember = {
      id: randomUUID(),
      email,
      role,
      createdAt: at,
      setupExpiresAt: at + SETUP_LINK_LIFETIME_MS,
    };
    const record = { action: 'staff_added', subject: member.email, after: { role } };
    if (!(await this.staff.insert(member, sha256(setupToken), { actor, record, at })))
      throw conflict('staff_exists', `${member.email} is already a staff member`);
    return { member, setupToken };
  }

  /**
   * Disables the member, for an owner only: their sessions stop working at their next request, and they cannot log
   * in. An owner may not disable themselves, and nobody the last owner who is not disabled (409), so that someone can
   * always add, reset and re-enable members from the console.
   */
  async disable(rawEmail: string, actor: StaffIdentity): Promise<StaffMember> {
    const member = await this.member(rawEmail);
    await this.requireOwner(actor, member.email, 'staff_disabled', 'disable a staff member');
    if (member.id === actor.id)
      throw conflict('staff_disabling_self', 'You may not disable yourself; another owner may disable you');
    const at = this.now();
    const record = {
      action: 'staff_disabled',
      subject: member.email,
      before: { disabled: false },
      after: { disabled: true },
    };
    const outcome = await this.staff.disable(member, { actor, record, at });
    if (outcome === 'already_disabled') throw conflict('staff_disabled', `${member.email} is already disabled`);
    if (outcome === 'last_owner')
      throw conflict(
        'last_owner',
        `${member.email} is the last owner who is not disabled; add or re-enable another owner first`,
      );
    return { ...member, disabledAt: at };
  }

  /**
   * A new set-up link for a member who lost theirs, their authenticator or their recovery codes, or whose
   * credentials may be known to someone else: the old link, password, second factor, recovery codes and sessions
   * stop working at once. For an owner only; 409 for a disabled member (re-enabling does the same for them).
   */
  async reissueSetup(rawEmail: string, actor: StaffIdentity): Promise<IssuedSetup> {
    const member = await this.member(rawEmail);
    await this.requireOwner(actor, member.email, 'staff_reset', 'reset a staff member');
    if (member.disabledAt) throw disabledConflict(member);
    return this.issueSetup(member, { action: 'staff_reset', subject: member.email }, actor, (hash, expiresAt, change) =>
      this.staff.resetCredentials(member.id, hash, expiresAt, change),
    );
  }

  /**
   * Enables a disabled member again, for an owner only (a refusal is recorded too): they start from a new set-up
   * link, with none of their old password, second factor, recovery codes or sessions. 409 when not disabled.
   */
  async reenable(rawEmail: string, actor: StaffIdentity): Promise<IssuedSetup> {
    const member = await this.member(rawEmail);
    await this.requireOwner(actor, member.email, 'staff_reenabled', 're-enable a staff member');
    if (!member.disabledAt) throw notDisabledConflict(member);
    const record = {
      action: 'staff_reenabled',
      subject: member.email,
      before: { disabled: true },
      after: { disabled: false },
    };
    return this.issueSetup(member, record, actor, (hash, expiresAt, change) =>
      this.staff.reenable(member.id, hash, expiresAt, change),
    );
  }

  /** Refuses, and records the refusal of, a change by a member who is not an owner. */
  private async requireOwner(actor: StaffIdentity, subject: string, change: string, what: string): Promise<void> {
    if (actor.role === 'owner') return;
    const record = { action: 'role_refused', subject, after: { refused: change } };
    await this.staff.appendAudit({ actor, record, at: this.now() });
    throw new AppError('permission_denied', 'staff_role_refused', `Only an owner may ${what}`);
  }

  private async member(rawEmail: string): Promise<StaffMember> {
    const member = await this.staff.findByEmail(normaliseEmail(rawEmail));
    if (!member) throw notFound(`no staff member has the email ${rawEmail.trim()}`, 'staff_not_found');
    return member;
  }

  /** A new set-up link stored by `store` with its audit record; 409 when the member's state changed meanwhile. */
  private async issueSetup(
    member: StaffMember,
    record: StaffActionRecord,
    actor: StaffIdentity,
    store: (setupTokenHash: string, expiresAt: number, change: StaffChange) => Promise<boolean>,
  ): Promise<IssuedSetup> {
    const at = this.now();
    const setupToken = newSessionToken();
    const setupExpiresAt = at + SETUP_LINK_LIFETIME_MS;
    if (!(await store(sha256(setupToken), setupExpiresAt, { actor, record, at })))
      throw member.disabledAt ? notDisabledConflict(member) : disabledConflict(member);
    return { member: { ...member, disabledAt: undefined, setupExpiresAt }, setupToken };
  }
}

const notDisabledConflict = (member: StaffMember) => conflict('staff_not_disabled', `${member.email} is not disabled`);
const disabledConflict = (member: StaffMember) =>
  conflict('staff_disabled', `${member.email} is disabled; an owner may re-enable them`);
