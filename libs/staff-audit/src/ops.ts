/** `audit [--since]`: a component's staff audit log exported by its ops command line as JSON lines, oldest first. */
import type { Migration } from '@storefront/db';
import { instantOption, withStore, type OpsCommand } from '@storefront/lifecycle';
import { exportStaffActions } from './log';

export function auditExportCommand(service: string, migrations: Record<string, Migration>, name = 'audit'): OpsCommand {
  return {
    name,
    summary:
      `export ${service}'s staff audit log (who did what, when, from where, before and after) ` +
      'as JSON lines, oldest first',
    options: { since: { value: '<iso-date>', description: 'only entries from this moment on (default: all)' } },
    async run({ options, env }) {
      const since = typeof options.since === 'string' ? instantOption(options.since, 'since') : 0;
      const actions = await withStore(env, service, migrations, (db) => exportStaffActions(db, since));
      const entries = actions.map(({ id: _id, ...action }) => ({ ...action, at: new Date(action.at).toISOString() }));
      return { text: entries.map((entry) => JSON.stringify(entry)).join('\n'), data: { entries } };
    },
  };
}
