/**
 * How batches make up a stock-limited SKU's count. `stock.on_hand` counts the units of the SKU's
 * batches that sell (state sellable, before their retest day): every batch change adds or takes
 * its units in the same transaction, so Reserve's one conditional UPDATE on the stock row still
 * decides alone (decision 1060). A retest day passing changes what sells with no write:
 * `stock.recount_at` is the first retest day among the counted batches, Reserve holds nothing on
 * a count that old, and whoever meets one (a writer locking the row, a reader) takes the batches
 * past their day off the count first. Every writer locks the stock row before its batches, and every change of the
 * units on hand is recorded in the stock movements ledger as it is written (stock-movements.ts).
 */
import { conflict } from '@storefront/errors';
import { forUpdate, retryOnDeadlock, type Knex } from '@storefront/db';
import { legacyBatchNumber, type ShelfBatch } from '../domain/batch';
import { recordMovements, type MovementCause } from './stock-movements';

type Trx = Knex.Transaction;

/** A batch that sells now, as counting and allocating need it. */
export interface SellableBatch extends ShelfBatch {
  legacy: boolean;
  sellableUntil?: number;
}

/** A SKU's stock row, locked and up to date. */
export interface Count {
  onHand: number;
  reserved: number;
  /** Epoch ms; null when no counted batch has a retest day. */
  recountAt: number | null;
}

/** Whether a stock row's on_hand may count a batch that has passed its retest day since. */
export function isStale(recountAt: unknown, now: number): boolean {
  return recountAt !== null && recountAt !== undefined && Number(recountAt) <= now;
}

/** Whether a batch in this state, selling until then, counts in its size's units on hand at `now`. */
export function isCounted(status: unknown, sellableUntil: unknown, now: number): boolean {
  return (
    status === 'sellable' && (sellableUntil === null || sellableUntil === undefined || Number(sellableUntil) > now)
  );
}

/** The count with `units` more counted units of a batch selling until `until` (fewer when negative). */
export function counting(count: Count, units: number, until?: number | null): Count {
  const lower = units > 0 && until != null && (count.recountAt === null || until < count.recountAt);
  return { ...count, onHand: count.onHand + units, ...(lower ? { recountAt: until } : {}) };
}

export class BatchStock {
  constructor(
    private readonly db: Knex,
    readonly now: () => number,
  ) {}

  /**
   * The SKU's stock row, locked, without the units of batches that passed their retest day since
   * it was counted; undefined for a size whose units are not counted.
   */
  async lockCount(trx: Trx, sku: string): Promise<Count | undefined> {
    const row = await forUpdate(trx('stock').where({ sku }).first('on_hand', 'reserved', 'recount_at'), this.db);
    if (!row) return undefined;
    const count: Count = {
      onHand: Number(row.on_hand),
      reserved: Number(row.reserved),
      recountAt: row.recount_at === null ? null : Number(row.recount_at),
    };
    return isStale(count.recountAt, this.now()) ? this.takeOffPastRetest(trx, sku, count) : count;
  }

  /**
   * Every counted batch sells until recount_at or later; those whose day has come are taken off the
   * count, and recount_at moves to the next day among the rest.
   */
  private async takeOffPastRetest(trx: Trx, sku: string, count: Count): Promise<Count> {
    const now = this.now();
    const rows = await forUpdate(
      trx('batches')
        .where({ sku, status: 'sellable' })
        .andWhere('units', '>', 0)
        .andWhere('sellable_until', '>=', count.recountAt!)
        .orderBy('number')
        .select('number', 'units', 'sellable_until'),
      this.db,
    );
    let passed = 0;
    const passedBatches: string[] = [];
    let recountAt: number | null = null;
    for (const row of rows) {
      const until = Number(row.sellable_until);
      if (until <= now) {
        passed += Number(row.units);
        passedBatches.push(String(row.number));
      } else if (recountAt === null || until < recountAt) recountAt = until;
    }
    return this.write(
      trx,
      sku,
      count,
      { ...count, onHand: count.onHand - passed, recountAt },
      { reason: 'past_retest', reference: passedBatches.join(' ') },
    );
  }

  /**
   * Writes a locked SKU's count as it is after a change (`before` is the count as locked), recording the change of its
   * units on hand, if any, as caused by `cause`.
   */
  async write(trx: Trx, sku: string, before: Count, after: Count, cause: MovementCause): Promise<Count> {
    await trx('stock')
      .where({ sku })
      .update({ on_hand: after.onHand, reserved: after.reserved, recount_at: after.recountAt });
    await recordMovements(trx, [{ sku, before: before.onHand, after: after.onHand }], cause, this.now());
    return after;
  }

  /** The SKU's batches that sell now (sellable, units left, before their retest day), locked. */
  async sellable(trx: Trx, sku: string): Promise<SellableBatch[]> {
    const rows = await forUpdate(
      sellableNow(trx('batches'), this.now())
        .where({ sku })
        .select('number', 'units', 'retest_on', 'received_at', 'legacy', 'sellable_until'),
      this.db,
    );
    return rows.map((row: Record<string, unknown>) => ({
      ...shelfBatchOf(row),
      legacy: Boolean(row['legacy']),
      ...(row['sellable_until'] != null ? { sellableUntil: Number(row['sellable_until']) } : {}),
    }));
  }

  /** Brings up to date the counts of `skus` (found with one read when absent) that a retest day made stale. */
  async takeOffStale(skus?: readonly string[]): Promise<void> {
    const stale: string[] = skus
      ? [...skus]
      : await this.db('stock').where('recount_at', '<=', this.now()).pluck('sku');
    for (const sku of stale.sort()) {
      await retryOnDeadlock(() => this.db.transaction((trx) => this.lockCount(trx, sku)));
    }
  }

  /**
   * Adds units without batch information (a restock, a refund's units of an unknown batch) to the
   * SKU's legacy batch, made when missing. `onlyIfSellable` refuses a legacy batch that is
   * quarantined or recalled, where units would not count. Says how many of the units count, and
   * whether the batch had none before (the batch the next unit is sold from changes).
   */
  async addUnbatched(
    trx: Trx,
    sku: string,
    units: number,
    { onlyIfSellable }: { onlyIfSellable: boolean },
  ): Promise<{ counted: number; refilled: boolean }> {
    const number = legacyBatchNumber(sku);
    const legacy = await forUpdate(trx('batches').where({ number }).first('status', 'units'), this.db);
    if (!legacy) {
      await trx('batches').insert(this.legacyBatchRow(sku, units));
      return { counted: units, refilled: true };
    }
    if (onlyIfSellable) refuseUnsellableLegacy(sku, number, legacy.status);
    await trx('batches').where({ number }).increment('units', units);
    return { counted: legacy.status === 'sellable' ? units : 0, refilled: Number(legacy.units) === 0 };
  }

  /**
   * Counts a SKU afresh at `total` units, as an owner's count or an import says: its legacy batch
   * holds what its other sellable batches do not. Refused when those batches alone hold more
   * (`exact`), or the legacy batch is then left empty (an import). `count` is its locked stock row.
   * Returns whether the legacy batch went from or to no units.
   */
  async countAfresh(
    trx: Trx,
    sku: string,
    count: Count,
    total: number,
    { exact, cause }: { exact: boolean; cause: MovementCause },
  ): Promise<boolean> {
    const number = legacyBatchNumber(sku);
    const batches = await this.sellable(trx, sku);
    const inBatches = batches.filter((batch) => batch.number !== number);
    const units = inBatches.reduce((sum, batch) => sum + batch.units, 0);
    if (exact && total < units) {
      throw conflict(
        'stock_in_batches',
        `${sku} has ${units} units in sellable batches, more than ${total}; take a batch off sale ` +
          '(quarantine or recall) to count fewer',
      );
    }
    const unbatched = Math.max(0, total - units);
    const legacy = await forUpdate(trx('batches').where({ number }).first('status', 'units'), this.db);
    let legacyCounts = unbatched;
    let crossedZero = false;
    if (!legacy) {
      if (unbatched > 0) await trx('batches').insert(this.legacyBatchRow(sku, unbatched));
      crossedZero = unbatched > 0;
    } else if (legacy.status !== 'sellable') {
      if (exact) refuseUnsellableLegacy(sku, number, legacy.status);
      legacyCounts = 0;
    } else {
      await trx('batches').where({ number }).update({ units: unbatched });
      crossedZero = (Number(legacy.units) === 0) !== (unbatched === 0);
    }
    const dated = inBatches.flatMap((batch) => (batch.sellableUntil === undefined ? [] : [batch.sellableUntil]));
    await this.write(
      trx,
      sku,
      count,
      { ...count, onHand: units + legacyCounts, recountAt: dated.length > 0 ? Math.min(...dated) : null },
      cause,
    );
    return crossedZero;
  }

  /** A legacy batch's row, received now. */
  legacyBatchRow(sku: string, units: number) {
    return {
      number: legacyBatchNumber(sku),
      sku,
      units,
      received_at: this.now(),
      status: 'sellable',
      legacy: true,
    };
  }
}

/** A `batches` row in the sale order's terms. */
export function shelfBatchOf(row: Record<string, unknown>): ShelfBatch {
  return {
    number: String(row['number']),
    units: Number(row['units']),
    receivedAt: Number(row['received_at']),
    ...(row['retest_on'] ? { retestOn: String(row['retest_on']) } : {}),
  };
}

/** Restricts a query of `batches` to those that sell at `now`. */
export function sellableNow<T extends Knex.QueryBuilder>(query: T, now: number): T {
  return query
    .where('status', 'sellable')
    .andWhere('units', '>', 0)
    .andWhere((until) => until.whereNull('sellable_until').orWhere('sellable_until', '>', now)) as T;
}

function refuseUnsellableLegacy(sku: string, number: string, status: string): void {
  if (status === 'sellable') return;
  throw conflict(
    'legacy_batch_not_sellable',
    `${sku}'s units without a batch are in ${number}, which is ${status}; receive the units as a batch instead`,
  );
}
