/**
 * `staff add|disable|reset` and `audit`: the console's accounts, managed by whoever runs identity's ops
 * command line. The set-up link is printed once; only its hash is stored.
 */
import { auditExportCommand } from '@storefront/staff-audit';
import { withStore, type OpsCommand } from '@storefront/lifecycle';
import type { EnvReader } from '@storefront/config';
import { migrations } from '../migrations';
import { StaffStore, type StaffMember } from '../stores/staff';
import { StaffRoster, parseStaffRole } from '../domain/staff-roster';

const withRoster = <T>(env: EnvReader, work: (roster: StaffRoster) => Promise<T>) =>
  withStore(env, 'identity', migrations, (db) => work(new StaffRoster(new StaffStore(db))));

/** The console's set-up page for `token` on this deployment (PUBLIC_BASE_URL, with or without a trailing slash). */
export function setupLink(env: EnvReader, token: string): string {
  return new URL(
    `console/setup/${token}`,
    `${env.url('PUBLIC_BASE_URL', 'http://localhost:8080').replace(/\/*$/, '')}/`,
  ).toString();
}

function linkAnswer(env: EnvReader, verb: string, { member, setupToken }: { member: StaffMember; setupToken: string }) {
  const link = setupLink(env, setupToken);
  const expiresAt = new Date(member.setupExpiresAt!).toISOString();
  return {
    text: `${verb} ${member.email} (${member.role}); give them this set-up link, shown only now, which works once until ${expiresAt}:\n${link}`,
    data: { staff: { email: member.email, role: member.role }, setupLink: link, expiresAt },
  };
}

export const staffCommands: OpsCommand[] = [
  {
    name: 'staff add',
    args: ['<email>'],
    summary: 'add a console account and print its one-time set-up link (password, authenticator, recovery codes)',
    options: {
      role: {
        value: '<owner|staff>',
        description: 'owner: everything; staff: orders and dispatch, read-only elsewhere (default: staff)',
      },
    },
    async run({ args: [email], options, env }) {
      const role = parseStaffRole(typeof options.role === 'string' ? options.role : 'staff');
      return linkAnswer(env, 'added', await withRoster(env, (roster) => roster.add(email!, role)));
    },
  },
  {
    name: 'staff reset',
    args: ['<email>'],
    summary: 'print a new set-up link for a member who lost theirs, or their authenticator and recovery codes',
    async run({ args: [email], env }) {
      return linkAnswer(env, 'new set-up link for', await withRoster(env, (roster) => roster.reissueSetup(email!)));
    },
  },
  {
    name: 'staff disable',
    args: ['<email>'],
    summary: 'disable a console account: its sessions stop working at once and it can no longer log in',
    async run({ args: [email], env }) {
      const member = await withRoster(env, (roster) => roster.disable(email!));
      return {
        text: `disabled ${member.email}`,
        data: {
          staff: { email: member.email, role: member.role, disabledAt: new Date(member.disabledAt!).toISOString() },
        },
      };
    },
  },
  auditExportCommand('identity', migrations),
];
