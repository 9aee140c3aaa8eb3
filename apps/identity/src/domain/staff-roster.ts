/**
 * Who may use the console: operators add staff members (each gets a one-time set-up link) and
 * disable them from the ops command line. 400 for a bad email or role,
 * 404 for an unknown member, 409 for a taken email or a member already disabled.
 */
import { randomUUID } from 'node:crypto';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { STAFF_ROLES, type StaffMember, type StaffRole, type StaffStore } from '../stores/staff';
import { normaliseEmail } from './rules';
import { newSessionToken } from './session-tokens';
import { sha256 } from './staff-accounts';

export const SETUP_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

export function parseStaffRole(raw: string): StaffRole {
  if (!(STAFF_ROLES as readonly string[]).includes(raw))
    throw invalidArgument(`role must be one of ${STAFF_ROLES.join(', ')}`);
  return raw as StaffRole;
}

export class StaffRoster {
  constructor(
    private readonly staff: StaffStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new member and the token of their one-time set-up link; 409 when the email is already staff. */
  async add(rawEmail: string, role: StaffRole): Promise<{ member: StaffMember; setupToken: string }> {
    const { staff, now } = this;
    const setupToken = newSessionToken();
    const member: StaffMember = {
      id: randomUUID(),
      email: normaliseEmail(rawEmail),
      role,
      createdAt: now(),
      setupExpiresAt: now() + SETUP_LINK_LIFETIME_MS,
    };
    if (!(await staff.insert(member, sha256(setupToken))))
      throw conflict('staff_exists', `${member.email} is already a staff member`);
    return { member, setupToken };
  }

  /** Disables the member: their sessions stop working at their next request, and they cannot log in. */
  async disable(rawEmail: string): Promise<StaffMember> {
    const { staff, now } = this;
    const member = await staff.findByEmail(normaliseEmail(rawEmail));
    if (!member) throw notFound(`no staff member has the email ${rawEmail.trim()}`, 'staff_not_found');
    if (!(await staff.disable(member.id, now())))
      throw conflict('staff_disabled', `${member.email} is already disabled`);
    return { ...member, disabledAt: now() };
  }

  /**
   * A new set-up link for a member who lost theirs, or their authenticator and recovery codes;
   * the previous link stops working, and using the new one replaces the password, the second
   * factor and the recovery codes.
   */
  async reissueSetup(rawEmail: string): Promise<{ member: StaffMember; setupToken: string }> {
    const { staff, now } = this;
    const member = await staff.findByEmail(normaliseEmail(rawEmail));
    if (!member) throw notFound(`no staff member has the email ${rawEmail.trim()}`, 'staff_not_found');
    if (member.disabledAt) throw conflict('staff_disabled', `${member.email} is disabled`);
    const setupToken = newSessionToken();
    const setupExpiresAt = now() + SETUP_LINK_LIFETIME_MS;
    await staff.replaceSetupToken(member.id, sha256(setupToken), setupExpiresAt);
    return { member: { ...member, setupExpiresAt }, setupToken };
  }
}
