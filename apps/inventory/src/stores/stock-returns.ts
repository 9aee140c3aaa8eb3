/**
 * Units of a refunded order put back on hand, on the batches the order took them from. Each
 * return is named once (by the refund it comes from) and recorded in the same transaction as its
 * increments, so a repeat, or two at once on any replica, counts the units back exactly once.
 */
import { isUniqueViolation, retryOnDeadlock, type Knex } from '@storefront/db';
import type { Line } from '../domain/lines';
import type { Allocations } from './allocations';
import { newCatalogRevision } from './catalog';

export interface StockReturn {
  /** False when this return id had already been applied. */
  newlyReturned: boolean;
  /** The lines whose units went back: stock-limited SKUs only, others are always available. */
  returned: Line[];
}

export class StockReturnStore {
  constructor(
    private readonly db: Knex,
    private readonly allocations: Allocations,
    private readonly now: () => number = Date.now,
  ) {}

  async returnStock(returnId: string, orderReference: string, lines: Line[]): Promise<StockReturn> {
    try {
      return await retryOnDeadlock(() =>
        this.db.transaction(async (trx) => {
          // The row goes in first: a concurrent repeat waits on its key, then finds it taken.
          await trx('stock_returns').insert({
            id: returnId,
            order_reference: orderReference,
            lines_json: JSON.stringify(lines),
            created_at: this.now(),
          });
          const returned: Line[] = [];
          let refilled = false;
          // In SKU order, so two returns lock stock rows in the same order.
          for (const line of [...lines].sort((a, b) => a.sku.localeCompare(b.sku))) {
            const put = await this.allocations.returnUnits(trx, orderReference, line);
            if (put.counted) returned.push(line);
            refilled ||= put.refilled;
          }
          // A batch that had no units sells again: the published catalog may name it.
          if (refilled) await newCatalogRevision(trx);
          return { newlyReturned: true, returned };
        }),
      );
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return { newlyReturned: false, returned: [] };
    }
  }
}
