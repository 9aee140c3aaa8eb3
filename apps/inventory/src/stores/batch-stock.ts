/**
 * How batches make up a stock-limited SKU's count. `stock.on_hand` is the units of the SKU's
 * batches that sell now (state sellable, not past their retest day), written in the transaction of
 * every batch change, so Reserve's one conditional UPDATE on the stock row still decides alone
 * (decision 1060). A retest day passing changes what sells with no write: `stock.recount_at` is
 * the moment the first counted batch passes its day, Reserve holds nothing on a count that old,
 * and whoever meets one counts the SKU again. Every writer locks the stock row before its batches.
 */
import { conflict } from '@storefront/errors';
import { forUpdate, retryOnDeadlock, type Knex } from '@storefront/db';
import { legacyBatchNumber, type ShelfBatch } from '../domain/batch';

type Trx = Knex.Transaction;

/** A batch that sells now, as counting and allocating need it. */
export interface SellableBatch extends ShelfBatch {
  legacy: boolean;
  sellableUntil?: number;
}

/** A SKU's count as its stock row keeps it. */
export interface Count {
  onHand: number;
  recountAt: number | null;
}

/** Whether a stock row's on_hand may count a batch that has passed its retest day since. */
export function isStale(recountAt: unknown, now: number): boolean {
  return recountAt !== null && recountAt !== undefined && Number(recountAt) <= now;
}

/** The count of the batches that sell now: their units, and when the first of them stops selling. */
export function countOf(batches: readonly SellableBatch[]): Count {
  let onHand = 0;
  let recountAt: number | null = null;
  for (const batch of batches) {
    if (batch.units === 0) continue;
    onHand += batch.units;
    if (batch.sellableUntil !== undefined && (recountAt === null || batch.sellableUntil < recountAt))
      recountAt = batch.sellableUntil;
  }
  return { onHand, recountAt };
}

export class BatchStock {
  constructor(
    private readonly db: Knex,
    readonly now: () => number,
  ) {}

  /** The SKU's stock row, locked; undefined for a size whose units are not counted. */
  async lockCount(trx: Trx, sku: string): Promise<{ onHand: number; reserved: number } | undefined> {
    const row = await forUpdate(trx('stock').where({ sku }).first('on_hand', 'reserved'), this.db);
    return row ? { onHand: Number(row.on_hand), reserved: Number(row.reserved) } : undefined;
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

  /** Writes the count of `batches` (what sells after a change) to the SKU's locked stock row. */
  async writeCount(trx: Trx, sku: string, batches: readonly SellableBatch[], releasedHold = 0): Promise<Count> {
    const count = countOf(batches);
    const update: Record<string, unknown> = { on_hand: count.onHand, recount_at: count.recountAt };
    if (releasedHold > 0) update['reserved'] = trx.raw('reserved - ?', [releasedHold]);
    await trx('stock').where({ sku }).update(update);
    return count;
  }

  /** Counts a SKU again from its batches, in the caller's transaction (which then holds its stock row). */
  async recount(trx: Trx, sku: string): Promise<Count | undefined> {
    if (!(await this.lockCount(trx, sku))) return undefined;
    return this.writeCount(trx, sku, await this.sellable(trx, sku));
  }

  /**
   * Counts again every SKU whose count has gone stale, among `skus` (found with one read when
   * absent), each in a transaction of its own.
   */
  async recountStale(skus?: readonly string[]): Promise<void> {
    const stale: string[] = skus
      ? [...skus]
      : await this.db('stock').where('recount_at', '<=', this.now()).pluck('sku');
    for (const sku of stale.sort()) {
      await retryOnDeadlock(() =>
        this.db.transaction(async (trx) => {
          const row = await forUpdate(trx('stock').where({ sku }).first('recount_at'), this.db);
          if (row && isStale(row.recount_at, this.now())) await this.recount(trx, sku);
        }),
      );
    }
  }

  /**
   * Adds units without batch information (a restock, a refund's units of an unknown batch) to the
   * SKU's legacy batch, made when missing. `onlyIfSellable` refuses a legacy batch that is
   * quarantined or recalled, where units would not count. Returns whether the batch had no units
   * before, which changes the batch the next unit is sold from.
   */
  async addUnbatched(trx: Trx, sku: string, units: number, { onlyIfSellable }: { onlyIfSellable: boolean }) {
    const number = legacyBatchNumber(sku);
    const legacy = await forUpdate(trx('batches').where({ number }).first('status', 'units'), this.db);
    if (!legacy) {
      await trx('batches').insert(this.legacyBatchRow(sku, units));
      return true;
    }
    if (onlyIfSellable) refuseUnsellableLegacy(sku, number, legacy.status);
    await trx('batches').where({ number }).increment('units', units);
    return Number(legacy.units) === 0;
  }

  /**
   * Sets a counted SKU's units without batch information so that all its sellable units come to
   * `total`: the legacy batch holds what its other sellable batches do not. Refused when those
   * batches alone hold more (`exact`), or set to none (an import). Returns whether the legacy
   * batch went from or to no units.
   */
  async setUnbatchedTotal(trx: Trx, sku: string, total: number, { exact }: { exact: boolean }): Promise<boolean> {
    const number = legacyBatchNumber(sku);
    const inBatches = (await this.sellable(trx, sku))
      .filter((batch) => batch.number !== number)
      .reduce((sum, batch) => sum + batch.units, 0);
    if (exact && total < inBatches) {
      throw conflict(
        'stock_in_batches',
        `${sku} has ${inBatches} units in sellable batches, more than ${total}; take a batch off sale ` +
          '(quarantine or recall) to count fewer',
      );
    }
    const units = Math.max(0, total - inBatches);
    const legacy = await forUpdate(trx('batches').where({ number }).first('status', 'units'), this.db);
    if (!legacy) {
      if (units > 0) await trx('batches').insert(this.legacyBatchRow(sku, units));
      return units > 0;
    }
    if (legacy.status !== 'sellable') {
      if (exact) refuseUnsellableLegacy(sku, number, legacy.status);
      return false;
    }
    await trx('batches').where({ number }).update({ units });
    return (Number(legacy.units) === 0) !== (units === 0);
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
