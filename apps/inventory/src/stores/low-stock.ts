/**
 * Low-stock thresholds in inventory's store and the crossing check a write that takes units runs in its own
 * transaction (decision 1316): the sizes' thresholds and units now available are read with the write, under the stock
 * rows' locks the write took, and each size the write took below its threshold counts one more crossing and queues
 * the owners' mail, keyed by that crossing's number, in the same commit. Two orders taking the last units above the
 * threshold at once are serialised on the stock row: only the one that crossed it mails, and a replica that read a
 * stale count would make the same key, which the outbox drops.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, notFound } from '@storefront/errors';
import { forUpdate, toNumber, type BatchStatement, type Knex } from '@storefront/db';
import { mailInsert } from '@storefront/outbox';
import { recordStaffAction } from '@storefront/staff-audit';
import { checkThreshold, crossedBelow, lowStockMail, type LowStockReading } from '../domain/low-stock';

const TABLE = 'low_stock_thresholds';

/** Where the owners' low-stock mail goes, and the console it links to; without it nothing is read or mailed. */
export interface LowStockMailSettings {
  to: string;
  publicBaseUrl: string;
}

export class LowStock {
  constructor(
    private readonly db: Knex,
    private readonly mail: LowStockMailSettings | undefined,
    private readonly now: () => number,
  ) {}

  /** Whether writes check for crossings at all (a recipient is configured). */
  get mailed(): boolean {
    return this.mail !== undefined;
  }

  /** The read sent after the write's statements: each of these sizes' threshold and units available, locked. */
  readings(db: Knex, skus: string[]): BatchStatement {
    return forUpdate(
      db(TABLE)
        .join('stock', 'stock.sku', `${TABLE}.sku`)
        .whereIn(`${TABLE}.sku`, skus)
        .select(
          `${TABLE}.sku as sku`,
          'threshold',
          'crossings',
          'stock.on_hand as on_hand',
          'stock.reserved as reserved',
        ),
      db,
    );
  }

  /** The statements that count and mail each size among the readings that `taken` took below its threshold. */
  crossings(db: Knex, rows: Array<Record<string, unknown>>, taken: Map<string, number>, now: number): BatchStatement[] {
    if (!this.mail) return [];
    const { to, publicBaseUrl } = this.mail;
    return rows
      .map((row): LowStockReading => ({
        sku: row.sku as string,
        threshold: toNumber(row.threshold),
        crossings: toNumber(row.crossings),
        available: toNumber(row.on_hand) - toNumber(row.reserved),
        taken: taken.get(row.sku as string) ?? 0,
      }))
      .filter(crossedBelow)
      .flatMap((reading) => [
        db(TABLE).where({ sku: reading.sku }).increment('crossings', 1),
        mailInsert(db, lowStockMail(reading, to, publicBaseUrl), now),
      ]);
  }

  /**
   * Sets a counted size's threshold (undefined clears it), recorded in the staff audit log as
   * `low_stock_threshold_set` with the threshold before and after.
   */
  async setThreshold(sku: string, threshold: number | undefined, staff: StaffIdentity): Promise<void> {
    if (threshold !== undefined) checkThreshold(threshold);
    await this.db.transaction(async (trx) => {
      const stock = await forUpdate(trx('stock').where({ sku }).first('sku'), this.db);
      if (!stock) {
        const size = await trx('product_sizes').where({ sku }).first('sku');
        if (!size) throw notFound(`no size has the SKU ${sku}`, 'sku_not_found');
        throw conflict('not_stock_limited', `${sku} is not stock-limited (always available): it never runs low`);
      }
      const before = await trx(TABLE).where({ sku }).first('threshold');
      const now = this.now();
      if (threshold === undefined) await trx(TABLE).where({ sku }).delete();
      else if (before) await trx(TABLE).where({ sku }).update({ threshold, updated_at: now });
      else await trx(TABLE).insert({ sku, threshold, crossings: 0, updated_at: now });
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'low_stock_threshold_set',
          subject: sku,
          before: { threshold: before ? toNumber(before.threshold) : null },
          after: { threshold: threshold ?? null },
        },
        now,
      );
    });
  }
}
