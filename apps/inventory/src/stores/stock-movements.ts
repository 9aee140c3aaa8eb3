/**
 * The stock movements ledger (decision 1319): every change of a counted size's units on hand, with the units on hand
 * after it, why, and what it refers to. A row is written by whatever changes the count, in its transaction and under
 * the size's stock row lock it already holds, so the ledger and the count never disagree; rows are never updated or
 * deleted. Holds (Reserve, Release, expiry) change no units on hand and write none.
 */
import { invalidArgument } from '@storefront/errors';
import type { Knex } from '@storefront/db';
import { STOCK_MOVEMENT_PAGE_MAX } from '@storefront/formats';
import { instantOption } from '@storefront/lifecycle';

/** Why units on hand changed. */
export type MovementReason =
  | 'sale'
  | 'return'
  | 'batch_changed'
  | 'restock'
  | 'stock_set'
  | 'stock_uncounted'
  | 'product_removed'
  | 'import'
  | 'size_added'
  | 'batch_received'
  | 'batch_quarantined'
  | 'batch_released'
  | 'batch_recalled'
  | 'past_retest';

/** What changed the count: the reason, and the order reference, batch number or staff action id it refers to. */
export interface MovementCause {
  reason: MovementReason;
  reference: string;
}

export interface StockMovement extends MovementCause {
  id: number;
  /** Epoch ms. */
  occurredAt: number;
  sku: string;
  /** Gained (positive) or lost (negative). */
  units: number;
  onHandAfter: number;
}

const TABLE = 'stock_movements';
const PAGE_DEFAULT = 100;

/** A size's units on hand before and after a change. */
export interface CountChange {
  sku: string;
  before: number;
  after: number;
}

/**
 * Records the changes of units on hand that `cause` made, in one statement;
 * sizes whose units did not change are left out.
 */
export async function recordMovements(
  trx: Knex.Transaction,
  changes: readonly CountChange[],
  cause: MovementCause,
  now: number,
): Promise<void> {
  const moved = changes.filter(({ before, after }) => before !== after);
  if (moved.length === 0) return;
  await trx(TABLE).insert(
    moved.map(({ sku, before, after }) => ({
      occurred_at: now,
      sku,
      units: after - before,
      on_hand_after: after,
      reason: cause.reason,
      reference: cause.reference,
    })),
  );
}

export interface MovementPageQuery {
  /** RFC 3339 or a date: movements at or after it, and before `until`. */
  from: string;
  until: string;
  /** 1..STOCK_MOVEMENT_PAGE_MAX; 0 for the default. */
  limit: number;
  /** Empty for the first page, else the previous page's `nextCursor`. */
  cursor: string;
}

/** Movements over a period, oldest first (the order the counts changed in), a page at a time. */
export async function movementsPage(
  db: Knex,
  query: MovementPageQuery,
): Promise<{ movements: StockMovement[]; nextCursor: string }> {
  const { limit } = query;
  if (!Number.isInteger(limit) || limit < 0 || limit > STOCK_MOVEMENT_PAGE_MAX)
    throw invalidArgument(`limit must be a whole number from 1 to ${STOCK_MOVEMENT_PAGE_MAX}`, 'invalid_limit');
  const pageSize = limit === 0 ? PAGE_DEFAULT : limit;
  const from = instantOption(query.from, 'occurred_from');
  const until = instantOption(query.until, 'occurred_until');
  const after = query.cursor === '' ? undefined : cursorPosition(query.cursor);
  const rows = await db(TABLE)
    .where('occurred_at', '>=', from)
    .andWhere('occurred_at', '<', until)
    .modify((q) => {
      if (after)
        q.andWhere((w) =>
          w
            .where('occurred_at', '>', after.occurredAt)
            .orWhere((same) => same.where('occurred_at', after.occurredAt).andWhere('id', '>', after.id)),
        );
    })
    .orderBy([{ column: 'occurred_at' }, { column: 'id' }])
    .limit(pageSize + 1)
    .select('id', 'occurred_at', 'sku', 'units', 'on_hand_after', 'reason', 'reference');
  const movements = rows.slice(0, pageSize).map((row: Record<string, unknown>): StockMovement => ({
    id: Number(row['id']),
    occurredAt: Number(row['occurred_at']),
    sku: String(row['sku']),
    units: Number(row['units']),
    onHandAfter: Number(row['on_hand_after']),
    reason: String(row['reason']) as MovementReason,
    reference: String(row['reference']),
  }));
  const last = movements.at(-1);
  return {
    movements,
    nextCursor:
      rows.length > pageSize && last
        ? Buffer.from(JSON.stringify([last.occurredAt, last.id])).toString('base64url')
        : '',
  };
}

/** A cursor's position; unsigned, so only its form is checked. */
function cursorPosition(cursor: string): { occurredAt: number; id: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2 && parsed.every(Number.isSafeInteger))
    return { occurredAt: parsed[0] as number, id: parsed[1] as number };
  throw invalidArgument(
    "cursor is not valid; pass the previous page's next_cursor unchanged, or start again without it",
    'invalid_cursor',
  );
}
