/**
 * `staff add|reset|disable|enable` and `audit`: the console's accounts, managed by whoever runs identity's ops
 * command line, each change recorded in the staff audit log under the invocation's actor. The set-up link is printed
 * once; only its hash is stored.
 */
import { auditExportCommand, opsActor } from '@storefront/staff-audit';
import { withStore, type OpsCommand } from '@storefront/lifecycle';
import type { EnvReader } from '@storefront/config';
import { migrations } from '../migrations';
import { StaffStore } from '../stores/staff';
import { StaffRoster, parseStaffRole, type IssuedSetup } from '../domain/staff-roster';

const withRoster = <T>(env: EnvReader, work: (roster: StaffRoster) => Promise<T>) =>
  withStore(env, 'identity', migrations, (db) => work(new StaffRoster(new StaffStore(db))));

/** The console's set-up page for `token` on this deployment (PUBLIC_BASE_URL, with or without a trailing slash). */
export function setupLink(env: EnvReader, token: string): string {
  return new URL(
    `console/setup/${token}`,
    `${env.url('PUBLIC_BASE_URL', 'http://localhost:8080').replace(/\/*$/, '')}/`,
  ).toString();
}

function linkAnswer(env: EnvReader, verb: string, { member, setupToken }: IssuedSetup) {
  const link = setupLink(env, setupToken);
  const expiresAt = new Date(member.setupExpiresAt!).toISOString();
  return {
    text:
      `${verb} ${member.email} (${member.role}); give them this set-up link, shown only now, ` +
      `which works once until ${expiresAt}:\n${link}`,
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
    async run({ args: [email], options, env, actor }) {
      const role = parseStaffRole(typeof options.role === 'string' ? options.role : 'staff');
      return linkAnswer(env, 'added', await withRoster(env, (roster) => roster.add(email!, role, opsActor(actor))));
    },
  },
  {
    name: 'staff reset',
    args: ['<email>'],
    summary:
      'print a new set-up link for a member who lost theirs, their authenticator or recovery codes; ' +
      'their old password, codes and sessions stop working at once',
    async run({ args: [email], env, actor }) {
      const issued = await withRoster(env, (roster) => roster.reissueSetup(email!, opsActor(actor)));
      return linkAnswer(env, 'new set-up link for', issued);
    },
  },
  {
    name: 'staff disable',
    args: ['<email>'],
    summary: 'disable a console account: its sessions stop working at once and it can no longer log in',
    async run({ args: [email], env, actor }) {
      const member = await withRoster(env, (roster) => roster.disable(email!, opsActor(actor)));
      return {
        text: `disabled ${member.email}`,
        data: {
          staff: { email: member.email, role: member.role, disabledAt: new Date(member.disabledAt!).toISOString() },
        },
      };
    },
  },
  {
    name: 'staff enable',
    args: ['<email>'],
    summary:
      're-enable a disabled console account and print a new set-up link: nothing of its old ' +
      'password, codes or sessions works again',
    async run({ args: [email], env, actor }) {
      const issued = await withRoster(env, (roster) => roster.reenable(email!, opsActor(actor)));
      return linkAnswer(env, 're-enabled', issued);
    },
  },
  auditExportCommand('identity', migrations),
];
