/**
 * What operators change by hand: a SKU's units on hand (counted, or a delivery added) and
 * products taken out of the catalog. Every change is one conditional statement or one
 * transaction, so it is safe against reservations running at the same time on any replica.
 */
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { forUpdate, type Knex } from '@storefront/db';
import { wholeNumberOption } from '@storefront/lifecycle';
import { newCatalogRevision } from './catalog';
import type { ReservationStore } from './reservations';

/** Far above any shelf, well inside a 32-bit column. */
export const MAX_STOCK_UNITS = 1_000_000;

export interface StockLevel {
  sku: string;
  onHand: number;
  reserved: number;
  available: number;
}

export interface RemovedProduct {
  id: string;
  skus: string[];
}

/** Whole units from 0 to MAX_STOCK_UNITS, written as digits only. */
export function parseUnits(text: string, name: string, { min }: { min: number }): number {
  return wholeNumberOption(text, name, { min, max: MAX_STOCK_UNITS, code: 'invalid_units' });
}

export class StockAdmin {
  constructor(
    private readonly db: Knex,
    private readonly reservations: ReservationStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Sets the units on hand, making the SKU stock-limited if it was not. Units held by open
   * orders stay held, so the count may not go below them.
   */
  async setStock(sku: string, onHand: number): Promise<StockLevel> {
    return this.db.transaction(async (trx) => {
      await this.requireSku(trx, sku);
      const row = await forUpdate(trx('stock').where({ sku }).first('reserved'), this.db);
      if (!row) {
        await trx('stock').insert({ sku, on_hand: onHand, reserved: 0 });
      } else if (Number(row.reserved) > onHand) {
        throw conflict('stock_held', `${sku} has ${Number(row.reserved)} units held by open orders; stock on hand cannot go below that (asked for ${onHand})`);
      } else {
        await trx('stock').where({ sku }).update({ on_hand: onHand });
      }
      return this.level(trx, sku);
    });
  }

  /** Adds delivered units to a stock-limited SKU in one atomic increment. */
  async restock(sku: string, units: number): Promise<StockLevel> {
    return this.db.transaction(async (trx) => {
      await this.requireSku(trx, sku);
      const changed = await trx('stock').where({ sku }).andWhereRaw('on_hand + ? <= ?', [units, MAX_STOCK_UNITS]).increment('on_hand', units);
      if (changed === 0) {
        const limited = await trx('stock').where({ sku }).first('on_hand');
        if (!limited) throw conflict('not_stock_limited', `${sku} is not stock-limited (always available); use set-stock to start counting its units`);
        throw invalidArgument(`${sku} would hold more than ${MAX_STOCK_UNITS} units`, 'invalid_units');
      }
      return this.level(trx, sku);
    });
  }

  /**
   * Removes a product with its sizes and stock rows, refused while open orders hold any of
   * its SKUs. Lapsed holds do not count: those on stock are released first, as Reserve does.
   */
  async removeProduct(productId: string): Promise<RemovedProduct> {
    const skus: string[] = await this.db('product_sizes').where({ product_id: productId }).orderBy('sku').pluck('sku');
    if (skus.length > 0) await this.reservations.releaseExpired({ skus });
    return this.db.transaction(async (trx) => {
      const product = await forUpdate(trx('products').where({ id: productId }).first('id'), this.db);
      if (!product) throw notFound(`no product has id "${productId}"`, 'product_not_found');
      const held = await forUpdate(
        trx('reservation_lines as l')
          .join('reservations as r', 'r.order_reference', 'l.order_reference')
          .where('r.status', 'active')
          .andWhere('r.expires_at', '>', this.now())
          .whereIn('l.sku', skus)
          .orderBy('r.order_reference')
          .distinct('r.order_reference'),
        this.db,
      );
      if (held.length > 0) {
        const references = held.map((row: { order_reference: string }) => row.order_reference);
        throw conflict(
          'product_held',
          `${productId} is held by ${references.length} open order${references.length === 1 ? '' : 's'} (${references.join(', ')}); remove it once they are paid or released`,
        );
      }
      await trx('products').where({ id: productId }).delete();
      await newCatalogRevision(trx);
      return { id: productId, skus };
    });
  }

  private async requireSku(trx: Knex.Transaction, sku: string): Promise<void> {
    if (!(await trx('product_sizes').where({ sku }).first('sku'))) throw notFound(`no product size has SKU "${sku}"`, 'sku_not_found');
  }

  private async level(trx: Knex.Transaction, sku: string): Promise<StockLevel> {
    const row = await trx('stock').where({ sku }).first('on_hand', 'reserved');
    const onHand = Number(row.on_hand);
    const reserved = Number(row.reserved);
    return { sku, onHand, reserved, available: Math.max(0, onHand - reserved) };
  }
}
