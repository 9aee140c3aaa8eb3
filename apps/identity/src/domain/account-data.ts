/**
 * The customer's data rights, access: everything identity holds about the account, for the gateway to assemble with the
 * other components' parts. Sessions are listed by their times (identity keeps neither the token nor an address);
 * mails by their subject and times (bodies are emptied once sent); staff actions are those whose subject is the
 * account.
 */
import type { Knex } from '@storefront/db';
import { notFound } from '@storefront/errors';
import { mailsTo, type SentMailRecord } from '@storefront/outbox';
import { allStaffActionsOn, type StaffAction } from '@storefront/staff-audit';
import type { SessionRecord, SessionStore } from '../stores/sessions';
import type { User, UserStore } from '../stores/users';
import type { ConsentRecord, MarketingConsents } from './marketing-consent';

export interface AccountData {
  user: User;
  consents: ConsentRecord[];
  sessions: SessionRecord[];
  mails: SentMailRecord[];
  staffActions: StaffAction[];
}

export async function accountData(
  userId: string,
  deps: { db: Knex; users: UserStore; sessions: SessionStore; consents: MarketingConsents; now: () => number },
): Promise<AccountData> {
  const user = await deps.users.findById(userId);
  if (!user) throw notFound('the account no longer exists', 'account_not_found');
  const addresses = [user.email, ...(user.pendingEmail ? [user.pendingEmail] : [])];
  const [consents, sessions, mails, staffActions] = await Promise.all([
    deps.consents.history(userId),
    deps.sessions.ofOwner(userId, deps.now()),
    mailsTo(deps.db, addresses),
    allStaffActionsOn(deps.db, userId),
  ]);
  return {
    user,
    consents,
    sessions,
    mails,
    staffActions,
  };
}

export type DataRequestKind = 'export' | 'erasure';

export interface DataRequestRecord {
  accountId: string;
  email?: string;
  kind: DataRequestKind;
  /** Epoch milliseconds. */
  requestedAt: number;
  dueAt: number;
  completedAt?: number;
}

/** Records a request; an export is answered as it is made, so it is recorded answered. */
export async function recordDataRequest(
  db: Knex,
  userId: string,
  kind: DataRequestKind,
  now: number,
  completed: boolean,
): Promise<void> {
  await db('data_requests').insert({
    user_id: userId,
    kind,
    requested_at: now,
    completed_at: completed ? now : null,
  });
}

/** The newest requests first, each with its account's email while the account exists. */
export async function listDataRequests(db: Knex, limit: number): Promise<DataRequestRecord[]> {
  const rows = await db('data_requests')
    .leftJoin('users', 'users.id', 'data_requests.user_id')
    .orderBy([
      { column: 'data_requests.requested_at', order: 'desc' },
      { column: 'data_requests.id', order: 'desc' },
    ])
    .limit(limit)
    .select('data_requests.user_id', 'users.email', 'data_requests.kind', 'requested_at', 'completed_at');
  return rows.map((row: Record<string, unknown>) => {
    const requestedAt = Number(row.requested_at);
    return {
      accountId: row.user_id as string,
      ...(row.email ? { email: row.email as string } : {}),
      kind: row.kind as DataRequestKind,
      requestedAt,
      dueAt: oneMonthAfter(requestedAt),
      ...(row.completed_at === null ? {} : { completedAt: Number(row.completed_at) }),
    };
  });
}

/**
 * A request is answered within one month of its receipt: the same day of the next month, or that month's last day when
 * it has no such day (31 January is due 28 or 29 February). Days are UTC.
 */
export function oneMonthAfter(epochMs: number): number {
  const date = new Date(epochMs);
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  target.setUTCHours(date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds());
  return target.getTime();
}
