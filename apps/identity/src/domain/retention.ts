/**
 * Retention in identity (decision 1301): sessions opened longer ago than the login-record period (in the SQL store;
 * Redis expires its sessions itself) and the staff login records of the audit log go once their period is over (sent
 * mails are the sender's, libs/outbox). Every deletion is by time alone, so replicas passing at once delete each row
 * once between them; the audit log's changes (who changed what) are kept with the books.
 */
import type { Knex } from '@storefront/db';
import { STAFF_ACTIONS_TABLE } from '@storefront/staff-audit';
import { STAFF_LOGIN_ACTIONS } from '../stores/staff';

export interface IdentityRetentionSummary {
  sessions: number;
  loginRecords: number;
}

/** The audit log's login records: a staff member's sign-in attempts and their address. */
const LOGIN_ACTIONS = [...STAFF_LOGIN_ACTIONS, 'login_failed', 'login_rate_limited'];

export async function purgeIdentityRecords(
  deps: { db: Knex; sqlSessions: boolean; loginRecordsMs: number },
  now: number,
): Promise<IdentityRetentionSummary> {
  const { db, sqlSessions, loginRecordsMs } = deps;
  const loginCutoff = now - loginRecordsMs;
  let sessions = 0;
  if (sqlSessions)
    for (const table of ['sessions', 'staff_sessions'])
      sessions += await db(table).where('created_at', '<', loginCutoff).delete();
  const loginRecords = await db(STAFF_ACTIONS_TABLE)
    .whereIn('action', LOGIN_ACTIONS)
    .where('at', '<', loginCutoff)
    .delete();
  return { sessions, loginRecords };
}
