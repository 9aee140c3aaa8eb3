/**
 * The staff audit log. Each component keeps its own append-only `staff_actions` table and writes
 * a row in the same transaction as the staff action it records, so an action and its record
 * exist together or not at all. Rows are only ever inserted; nothing here updates or deletes.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { Knex, Migration } from '@storefront/db';
import { invalidArgument } from '@storefront/errors';
import type { audit } from '@storefront/proto';

export const STAFF_ACTIONS_TABLE = 'staff_actions';
const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;

/** What a staff member did, as a component records it. */
export interface StaffActionRecord {
  /** A stable snake_case name, e.g. `order_refunded`. */
  action: string;
  /** What it was done to: an order reference, a SKU, a promo code, an account id. */
  subject: string;
  /** The record before and after, as plain JSON; absent for a creation or a removal respectively. */
  before?: unknown;
  after?: unknown;
}

export interface StaffAction extends StaffActionRecord {
  id: number;
  /** Epoch milliseconds. */
  at: number;
  staffId: string;
  staffEmail: string;
  role: string;
  clientAddress: string;
}

export interface StaffActionQuery {
  /** Only this staff member's (exact email, any letter case), this action, or this subject. */
  staffEmail?: string;
  action?: string;
  subject?: string;
  /** Epoch milliseconds, inclusive lower and exclusive upper bound. */
  from?: number;
  until?: number;
  /** 1..100. */
  limit?: number;
  /** Newest first: only rows before this position (from the previous page's `nextCursor`). */
  before?: StaffActionCursor;
}

/** A row's place in the newest-first order; ids break ties between rows of the same millisecond. */
export interface StaffActionCursor {
  at: number;
  id: number;
}

/** The table; each component adds it with a migration of its own. */
export const staffActionsMigration: Migration = {
  async up(db) {
    await db.schema.createTable(STAFF_ACTIONS_TABLE, (t) => {
      t.increments('id').primary();
      t.bigInteger('at').notNullable();
      t.string('staff_id', 64).notNullable();
      t.string('staff_email', 254).notNullable();
      t.string('role', 16).notNullable();
      t.string('client_address', 64).notNullable();
      t.string('action', 64).notNullable();
      t.string('subject', 190).notNullable();
      t.text('before_json').nullable();
      t.text('after_json').nullable();
      t.index(['at', 'id']);
      t.index(['subject', 'at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists(STAFF_ACTIONS_TABLE);
  },
};

/** Records `record` as done by `staff` now, in the caller's transaction; answers the row's id. */
export async function recordStaffAction(
  trx: Knex | Knex.Transaction,
  staff: StaffIdentity,
  record: StaffActionRecord,
  now: number,
): Promise<number> {
  const [id] = await trx(STAFF_ACTIONS_TABLE).insert({
    at: now,
    staff_id: staff.id,
    staff_email: staff.email.toLowerCase(),
    role: staff.role,
    client_address: staff.clientAddress.slice(0, 64),
    action: record.action,
    subject: record.subject.slice(0, 190),
    before_json: record.before === undefined ? null : JSON.stringify(record.before),
    after_json: record.after === undefined ? null : JSON.stringify(record.after),
  });
  return Number(id);
}

/** A page of the log, newest first, and where the next page starts (absent on the last). */
export async function listStaffActions(
  db: Knex,
  query: StaffActionQuery = {},
): Promise<{ actions: StaffAction[]; nextCursor?: StaffActionCursor }> {
  const limit = query.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw invalidArgument(`limit must be a whole number from 1 to ${MAX_PAGE}`);
  const rows = await db(STAFF_ACTIONS_TABLE)
    .modify((q) => {
      if (query.staffEmail) q.where('staff_email', query.staffEmail.toLowerCase());
      if (query.action) q.where('action', query.action);
      if (query.subject) q.where('subject', query.subject);
      if (query.from !== undefined) q.where('at', '>=', query.from);
      if (query.until !== undefined) q.where('at', '<', query.until);
      const before = query.before;
      if (before)
        q.where((w) =>
          w.where('at', '<', before.at).orWhere((same) => same.where('at', before.at).andWhere('id', '<', before.id)),
        );
    })
    .orderBy([
      { column: 'at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit + 1);
  const actions = rows.slice(0, limit).map(toStaffAction);
  const last = actions[actions.length - 1];
  return { actions, ...(rows.length > limit && last ? { nextCursor: { at: last.at, id: last.id } } : {}) };
}

/** Every staff action on `subject`, newest first, a page of the log at a time. */
export async function allStaffActionsOn(db: Knex, subject: string): Promise<StaffAction[]> {
  const actions: StaffAction[] = [];
  let before: StaffActionCursor | undefined;
  do {
    const page = await listStaffActions(db, { subject, limit: 100, ...(before ? { before } : {}) });
    actions.push(...page.actions);
    before = page.nextCursor;
  } while (before);
  return actions;
}

/** ListStaffActions, the same RPC in every component: a page of its log as the console asks for it. */
export async function staffActionsPage(
  db: Knex,
  query: audit.StaffActionQuery | undefined,
): Promise<audit.StaffActionPage> {
  const { actions, nextCursor } = await listStaffActions(db, {
    ...(query?.staffEmail ? { staffEmail: query.staffEmail.trim() } : {}),
    ...(query?.action ? { action: query.action } : {}),
    ...(query?.subject ? { subject: query.subject.trim() } : {}),
    ...(query?.fromAt ? { from: query.fromAt } : {}),
    ...(query?.untilAt ? { until: query.untilAt } : {}),
    ...(query?.beforeAt ? { before: { at: query.beforeAt, id: query.beforeId } } : {}),
    ...(query?.limit ? { limit: query.limit } : {}),
  });
  return { actions: actions.map(staffActionMessage), more: nextCursor !== undefined };
}

/** A row as the facades answer it: the record before and after as JSON text, empty when absent. */
export function staffActionMessage({ before, after, ...action }: StaffAction): audit.StaffAction {
  return {
    ...action,
    beforeJson: before === undefined ? '' : JSON.stringify(before),
    afterJson: after === undefined ? '' : JSON.stringify(after),
  };
}

/** Every row from `since` (epoch ms), oldest first: the ops command line's export. */
export async function exportStaffActions(db: Knex, since = 0): Promise<StaffAction[]> {
  return (await db(STAFF_ACTIONS_TABLE).where('at', '>=', since).orderBy('id', 'asc')).map(toStaffAction);
}

function toStaffAction(row: Record<string, unknown>): StaffAction {
  return {
    id: Number(row['id']),
    at: Number(row['at']),
    staffId: String(row['staff_id']),
    staffEmail: String(row['staff_email']),
    role: String(row['role']),
    clientAddress: String(row['client_address']),
    action: String(row['action']),
    subject: String(row['subject']),
    ...(row['before_json'] != null ? { before: JSON.parse(String(row['before_json'])) } : {}),
    ...(row['after_json'] != null ? { after: JSON.parse(String(row['after_json'])) } : {}),
  };
}

/**
 * The ops command line acting as an owner: what an operator does there is recorded like a staff
 * member's action, under the `--actor` the operator gave (or the shell's user).
 */
export function opsActor(actor: string): StaffIdentity {
  return { id: `ops:${actor}`, role: 'owner', email: actor, clientAddress: 'ops-cli' };
}
