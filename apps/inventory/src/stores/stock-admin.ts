/**
 * What the shop's owner changes by hand, from the console or the ops command line: a SKU's units
 * on hand (counted, a delivery added, or no longer counted), its price and price breaks, and products taken out of
 * the catalog. Every change is one transaction that also records who made it in the staff audit
 * log, and is safe against reservations running at the same time on any replica. Units counted or
 * delivered here come without batch information: they are the size's legacy batch (batch-stock.ts).
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { forUpdate, type Knex } from '@storefront/db';
import { PRICE_PENCE_MAX, STOCK_NOTE_MAX_LENGTH, STOCK_UNITS_MAX, hasControlCharacters } from '@storefront/formats';
import { wholeNumberOption } from '@storefront/lifecycle';
import { recordStaffAction } from '@storefront/staff-audit';
import { newCatalogRevision } from './catalog';
import type { ReservationStore } from './reservations';
import { counting, type BatchStock } from './batch-stock';
import { recordMovements } from './stock-movements';
import type { PriceBreak, ProductSpecification } from '@storefront/formats';
import { breaksOfRow, checkPriceBreaks, storedBreaks } from '../domain/price-breaks';
import { photoOf, withPhotoColumns } from './photo-columns';
import type { ProductPhoto } from '../domain/photo';
import type { LowStock } from './low-stock';
import { specificationsOfRow } from '../domain/product-details';

/** A size with its price and stock, as the console shows it. */
export interface SkuStock {
  sku: string;
  size: string;
  pricePence: number;
  priceBreaks: PriceBreak[];
  /** Not counted: always available, and onHand, reserved and available are 0. */
  unlimited: boolean;
  onHand: number;
  /** Units held by open orders. */
  reserved: number;
  available: number;
  /** Fewer units available than this mail the owners (decision 1316); absent: never. */
  lowStockThreshold?: number;
}

export interface StaffCatalogProduct {
  id: string;
  name: string;
  description: string;
  /** 0, 500 or 2000. */
  vatRateBasisPoints: number;
  specifications: ProductSpecification[];
  sizes: SkuStock[];
  photo?: ProductPhoto;
}

export interface RemovedProduct {
  id: string;
  skus: string[];
}

/** Whole units from 0 to STOCK_UNITS_MAX, written as digits only. */
export function parseUnits(text: string, name: string, { min }: { min: number }): number {
  return wholeNumberOption(text, name, { min, max: STOCK_UNITS_MAX, code: 'invalid_units' });
}

/** Units as a number from `min` to STOCK_UNITS_MAX. */
export function checkUnits(units: number, name: string, { min }: { min: number }): number {
  if (!Number.isInteger(units) || units < min || units > STOCK_UNITS_MAX) {
    throw invalidArgument(
      `${name} must be a whole number from ${min} to ${STOCK_UNITS_MAX}, got ${String(units)}`,
      'invalid_units',
    );
  }
  return units;
}

/** A note of at most STOCK_NOTE_MAX_LENGTH printable characters, trimmed; empty only when not required. */
export function checkNote(note: string | undefined, { required }: { required: boolean }): string {
  const text = (note ?? '').trim();
  if (required && text === '') throw invalidArgument('note is required: say which delivery this is', 'invalid_note');
  if (text.length > STOCK_NOTE_MAX_LENGTH || hasControlCharacters(text)) {
    throw invalidArgument(
      `note must be at most ${STOCK_NOTE_MAX_LENGTH} printable characters on one line`,
      'invalid_note',
    );
  }
  return text;
}

export function checkPricePence(pricePence: number): number {
  if (!Number.isInteger(pricePence) || pricePence < 1 || pricePence > PRICE_PENCE_MAX) {
    throw invalidArgument(
      `price_pence must be a whole number of pence from 1 to ${PRICE_PENCE_MAX}, got ${String(pricePence)}`,
      'invalid_price',
    );
  }
  return pricePence;
}

/** What the audit log keeps of a size's stock. */
const stockRecord = (level: SkuStock) =>
  level.unlimited ? { unlimited: true } : { onHand: level.onHand, reserved: level.reserved };

export class StockAdmin {
  private readonly stock: BatchStock;
  private readonly lowStock: LowStock;

  constructor(
    private readonly db: Knex,
    private readonly reservations: ReservationStore,
    private readonly now: () => number = Date.now,
  ) {
    this.stock = reservations.stock;
    this.lowStock = reservations.lowStock;
  }

  /** Every product in catalog order, each size with its price and stock. */
  async catalog(): Promise<StaffCatalogProduct[]> {
    return this.products();
  }

  /** One product as the console shows it; an unknown id is a 404. */
  async product(productId: string): Promise<StaffCatalogProduct> {
    const [product] = await this.products(productId);
    if (!product) throw notFound(`no product has id "${productId}"`, 'product_not_found');
    return product;
  }

  private async products(productId?: string): Promise<StaffCatalogProduct[]> {
    await this.stock.takeOffStale();
    const query = withPhotoColumns(
      this.sizes(this.db)
        .join('products as p', 'p.id', 's.product_id')
        .orderBy([{ column: 'p.position' }, { column: 'p.id' }, { column: 's.position' }, { column: 's.sku' }])
        .select('p.id', 'p.name', 'p.description', 'p.vat_rate_basis_points', 'p.specifications'),
    );
    const rows = await (productId === undefined ? query : query.where('p.id', productId));
    const products: StaffCatalogProduct[] = [];
    for (const row of rows) {
      let product = products.at(-1);
      if (!product || product.id !== row.id) {
        product = {
          id: row.id,
          name: row.name,
          description: row.description,
          vatRateBasisPoints: Number(row.vat_rate_basis_points),
          specifications: specificationsOfRow(row.specifications),
          sizes: [],
          ...photoOf(row),
        };
        products.push(product);
      }
      product.sizes.push(toSkuStock(row));
    }
    return products;
  }

  /**
   * Sets the units on hand, making the SKU counted if it was unlimited. Units held by open
   * orders stay held, so the count may not go below them; nor below the units of its sellable
   * batches, since the count sets only the units without a batch.
   */
  async setStock(sku: string, onHand: number, staff: StaffIdentity, note = ''): Promise<SkuStock> {
    checkUnits(onHand, 'on_hand', { min: 0 });
    const reason = checkNote(note, { required: false });
    return this.db.transaction(async (trx) => {
      const before = await this.level(trx, sku, { lock: true });
      if (!before.unlimited && before.reserved > onHand) {
        throw conflict(
          'stock_held',
          `${sku} has ${before.reserved} units held by open orders; stock on hand cannot go below ` +
            `that (asked for ${onHand})`,
        );
      }
      if (before.unlimited) await trx('stock').insert({ sku, on_hand: 0, reserved: 0 });
      const count = (await this.stock.lockCount(trx, sku))!;
      // Recorded first, as the count will be (or the whole is refused): the movement names the action.
      const actionId = await recordStaffAction(
        trx,
        staff,
        {
          action: 'stock_set',
          subject: sku,
          before: stockRecord(before),
          after: { onHand, reserved: count.reserved, note: reason },
        },
        this.now(),
      );
      const legacyCrossedZero = await this.stock.countAfresh(trx, sku, count, onHand, {
        exact: true,
        cause: { reason: 'stock_set', reference: String(actionId) },
      });
      // Counted or not is part of the published catalog, and so is the batch the next unit comes from.
      if (before.unlimited || legacyCrossedZero) await newCatalogRevision(trx);
      return this.level(trx, sku);
    });
  }

  /**
   * Adds delivered units without batch information to a counted SKU (its legacy batch); a delivery
   * with its analysis is received as a batch instead.
   */
  async restock(sku: string, units: number, staff: StaffIdentity, note: string): Promise<SkuStock> {
    checkUnits(units, 'units', { min: 1 });
    const delivery = checkNote(note, { required: true });
    return this.db.transaction(async (trx) => {
      const level = await this.level(trx, sku, { lock: true });
      if (level.unlimited)
        throw conflict(
          'not_stock_limited',
          `${sku} is not stock-limited (always available); use set-stock to start counting its units`,
        );
      if (level.onHand + units > STOCK_UNITS_MAX)
        throw invalidArgument(`${sku} would exceed ${STOCK_UNITS_MAX} units on hand`, 'invalid_units');
      const count = (await this.stock.lockCount(trx, sku))!;
      const unbatched = await this.stock.addUnbatched(trx, sku, units, { onlyIfSellable: true });
      const after = counting(count, unbatched.counted);
      // Recorded before the count is written: the movement names the action.
      const actionId = await recordStaffAction(
        trx,
        staff,
        {
          action: 'stock_restocked',
          subject: sku,
          before: { onHand: level.onHand, reserved: level.reserved },
          after: { onHand: after.onHand, reserved: after.reserved, units, note: delivery },
        },
        this.now(),
      );
      await this.stock.write(trx, sku, count, after, { reason: 'restock', reference: String(actionId) });
      if (unbatched.refilled) await newCatalogRevision(trx);
      return this.level(trx, sku);
    });
  }

  /**
   * Stops counting a SKU's units: always available from now on. Refused while open orders hold
   * units of it, which they would otherwise give back to a count that no longer exists; lapsed
   * holds are released first, as Reserve does.
   */
  async setUnlimited(sku: string, staff: StaffIdentity, note = ''): Promise<SkuStock> {
    const reason = checkNote(note, { required: false });
    await this.reservations.releaseExpired({ skus: [sku] });
    return this.db.transaction(async (trx) => {
      const before = await this.level(trx, sku, { lock: true });
      if (!before.unlimited) {
        if (before.reserved > 0) {
          throw conflict(
            'stock_held',
            `${sku} has ${before.reserved} units held by open orders; mark it unlimited once they are paid or released`,
          );
        }
        await trx('stock').where({ sku }).delete();
        await newCatalogRevision(trx);
      }
      const after = await this.level(trx, sku);
      const actionId = await recordStaffAction(
        trx,
        staff,
        {
          action: 'stock_unlimited',
          subject: sku,
          before: stockRecord(before),
          after: { ...stockRecord(after), note: reason },
        },
        this.now(),
      );
      // The units counted leave the count with it.
      await recordMovements(
        trx,
        [{ sku, before: before.onHand, after: 0 }],
        { reason: 'stock_uncounted', reference: String(actionId) },
        this.now(),
      );
      return after;
    });
  }

  /** A size's unit price, from the next quote on (orders already placed keep theirs). */
  async setPrice(sku: string, pricePence: number, staff: StaffIdentity): Promise<SkuStock> {
    checkPricePence(pricePence);
    return this.db.transaction(async (trx) => {
      const before = await this.level(trx, sku, { lock: true });
      await trx('product_sizes').where({ sku }).update({ price_pence: pricePence });
      await newCatalogRevision(trx);
      await recordStaffAction(
        trx,
        staff,
        { action: 'price_changed', subject: sku, before: { pricePence: before.pricePence }, after: { pricePence } },
        this.now(),
      );
      return { ...before, pricePence };
    });
  }

  /** A size's quantity price breaks, replacing the ones it had, from the next quote on. */
  async setPriceBreaks(sku: string, breaks: unknown, staff: StaffIdentity): Promise<SkuStock> {
    const priceBreaks = checkPriceBreaks(breaks);
    return this.db.transaction(async (trx) => {
      const before = await this.level(trx, sku, { lock: true });
      await trx('product_sizes')
        .where({ sku })
        .update({ price_breaks: storedBreaks(priceBreaks) });
      await newCatalogRevision(trx);
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'price_breaks_changed',
          subject: sku,
          before: { priceBreaks: before.priceBreaks },
          after: { priceBreaks },
        },
        this.now(),
      );
      return { ...before, priceBreaks };
    });
  }

  /** A counted size's low-stock threshold (undefined clears it), audited as `low_stock_threshold_set`. */
  async setLowStockThreshold(sku: string, threshold: number | undefined, staff: StaffIdentity): Promise<SkuStock> {
    await this.lowStock.setThreshold(sku, threshold, staff);
    return this.db.transaction((trx) => this.level(trx, sku));
  }

  /**
   * Removes a product with its sizes and their stock, refused while open orders hold any of
   * its SKUs. Lapsed holds do not count: those on stock are released first, as Reserve does.
   */
  async removeProduct(productId: string, staff: StaffIdentity): Promise<RemovedProduct> {
    const skus: string[] = await this.db('product_sizes').where({ product_id: productId }).orderBy('sku').pluck('sku');
    if (skus.length > 0) await this.reservations.releaseExpired({ skus });
    return this.db.transaction(async (trx) => {
      const product = await forUpdate(trx('products').where({ id: productId }).first('id', 'name'), this.db);
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
          `${productId} is held by ${references.length} open ` +
            `order${references.length === 1 ? '' : 's'} (${references.join(', ')}); ` +
            'remove it once they are paid or released',
        );
      }
      // Locked in SKU order, as every stock writer takes them, so a sale committing meanwhile is in the counts removed.
      const counted: Array<{ sku: string; on_hand: unknown }> = await forUpdate(
        trx('stock').whereIn('sku', skus).orderBy('sku').select('sku', 'on_hand'),
        this.db,
      );
      const sizes = (await this.sizes(trx).where('s.product_id', productId).orderBy('s.sku')).map(toSkuStock);
      await trx('products').where({ id: productId }).delete();
      await newCatalogRevision(trx);
      const before = {
        id: productId,
        name: product.name,
        sizes: sizes.map((size) => ({ sku: size.sku, pricePence: size.pricePence, ...stockRecord(size) })),
      };
      const actionId = await recordStaffAction(
        trx,
        staff,
        { action: 'product_removed', subject: productId, before },
        this.now(),
      );
      await recordMovements(
        trx,
        counted.map((row) => ({ sku: row.sku, before: Number(row.on_hand), after: 0 })),
        { reason: 'product_removed', reference: String(actionId) },
        this.now(),
      );
      return { id: productId, skus };
    });
  }

  private sizes(db: Knex | Knex.Transaction) {
    return db('product_sizes as s')
      .leftJoin('stock as st', 'st.sku', 's.sku')
      .leftJoin('low_stock_thresholds as lt', 'lt.sku', 's.sku')
      .select('s.sku', 's.size', 's.price_pence', 's.price_breaks', 'st.on_hand', 'st.reserved', 'lt.threshold');
  }

  /**
   * A SKU's price and stock, its stock row locked when asked (and brought up to date when a retest day
   * has made its count stale); an unknown SKU is a 404.
   */
  private async level(trx: Knex.Transaction, sku: string, { lock = false } = {}): Promise<SkuStock> {
    const size = await trx('product_sizes').where({ sku }).first('sku', 'size', 'price_pence', 'price_breaks');
    if (!size) throw notFound(`no product size has SKU "${sku}"`, 'sku_not_found');
    const stock = lock
      ? await this.stock.lockCount(trx, sku)
      : await trx('stock').where({ sku }).first('on_hand as onHand', 'reserved');
    const low = await trx('low_stock_thresholds').where({ sku }).first('threshold');
    return toSkuStock({
      ...size,
      on_hand: stock?.onHand ?? null,
      reserved: stock?.reserved ?? null,
      threshold: low?.threshold ?? null,
    });
  }
}

function toSkuStock(row: {
  sku: string;
  size: string;
  price_pence: unknown;
  price_breaks: unknown;
  on_hand: unknown;
  reserved: unknown;
  threshold: unknown;
}): SkuStock {
  const unlimited = row.on_hand === null || row.on_hand === undefined;
  const onHand = unlimited ? 0 : Number(row.on_hand);
  const reserved = unlimited ? 0 : Number(row.reserved);
  return {
    sku: row.sku,
    size: row.size,
    pricePence: Number(row.price_pence),
    priceBreaks: breaksOfRow(row.price_breaks),
    unlimited,
    onHand,
    reserved,
    available: Math.max(0, onHand - reserved),
    ...(row.threshold === null || row.threshold === undefined ? {} : { lowStockThreshold: Number(row.threshold) }),
  };
}
