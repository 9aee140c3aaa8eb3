/** Inventory's catalog and stock tables. Nothing outside this service reads them. */
import { randomUUID } from 'node:crypto';
import { forUpdate, preparedRead, type Knex, type PreparedRead } from '@storefront/db';
import { skuOf, type CatalogFile, type CatalogSize as FileSize } from '../catalog-file';
import { unknownSkus, type Line } from '../domain/lines';
import type { BatchSummary, Catalog, CatalogProduct, PricedLine } from '../domain/catalog';
import { unitPriceAfterBreaks } from '@storefront/formats';
import { breaksOfRow, storedBreaks } from '../domain/price-breaks';
import { specificationsOfRow, storedSpecifications } from '../domain/product-details';
import { firstExpiryFirst } from '../domain/batch';
import { coalesced } from '@storefront/coalesce';
import { BatchStock, isStale, sellableNow, shelfBatchOf } from './batch-stock';
import { photoOf, withPhotoColumns } from './photo-columns';
import { recordMovements, type MovementCause } from './stock-movements';

export type ImportProgress = (productsDone: number, productsTotal: number) => void;

const CATALOG_REVISION = 'catalog_revision';
// "<snapshot version> <epoch ms>": the version published last and when it was first rendered.
const PUBLISHED_SNAPSHOT = 'published_snapshot';
// Rows per INSERT: well under SQLite's bound-parameter limit and MySQL's packet size.
const IMPORT_BATCH_ROWS = 500;

export class InventoryStore {
  /**
   * Available units per stock-limited SKU: on hand minus reserved, never below 0. A burst of
   * callers shares reads (see coalesced), and every answer comes from a read that started after
   * its caller asked.
   */
  readonly availableStock = coalesced(() => this.readAvailableStock());

  /** Every stock answer reads this: prepared below knex. */
  private readonly stockLevels: PreparedRead<[]>;
  private readonly stock: BatchStock;

  constructor(
    readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {
    this.stockLevels = preparedRead(db, () => db('stock').select('sku', 'on_hand', 'reserved', 'recount_at'));
    this.stock = new BatchStock(db, now);
  }

  private async readAvailableStock(): Promise<Record<string, number>> {
    let rows = await this.stockLevels();
    const stale = rows.filter((row) => isStale(row.recount_at, this.now())).map((row) => row.sku as string);
    if (stale.length > 0) {
      await this.stock.takeOffStale(stale);
      rows = await this.stockLevels();
    }
    const available: Record<string, number> = {};
    for (const row of rows) available[row.sku as string] = Math.max(0, Number(row.on_hand) - Number(row.reserved));
    return available;
  }

  /**
   * Products in catalog order with prices, stock flags and current batches, read consistently with
   * the revision.
   */
  async catalog(): Promise<Catalog> {
    await this.stock.takeOffStale();
    return this.db.transaction(async (trx) => {
      const revision = await this.revision(trx);
      const { current, nextRetestAt } = await this.currentBatches(trx);
      const rows = await withPhotoColumns(
        trx('products as p')
          .join('product_sizes as s', 's.product_id', 'p.id')
          .leftJoin('stock as st', 'st.sku', 's.sku')
          .orderBy([{ column: 'p.position' }, { column: 'p.id' }, { column: 's.position' }, { column: 's.sku' }])
          .select(
            'p.id',
            'p.name',
            'p.description',
            'p.specifications',
            's.size',
            's.sku',
            's.price_pence',
            's.price_breaks',
            'st.on_hand',
            'st.reserved',
          ),
      );
      const products: CatalogProduct[] = [];
      for (const row of rows) {
        let product = products.at(-1);
        if (!product || product.id !== row.id) {
          product = {
            id: row.id,
            name: row.name,
            description: row.description,
            specifications: specificationsOfRow(row.specifications),
            sizes: [],
            ...photoOf(row),
          };
          products.push(product);
        }
        const stockLimited = row.on_hand !== null;
        const currentBatch = current.get(row.sku);
        product.sizes.push({
          size: row.size,
          sku: row.sku,
          pricePence: Number(row.price_pence),
          priceBreaks: breaksOfRow(row.price_breaks),
          stockLimited,
          inStock: !stockLimited || Number(row.on_hand) - Number(row.reserved) > 0,
          ...(currentBatch ? { currentBatch } : {}),
        });
      }
      return { revision, products, ...(nextRetestAt === undefined ? {} : { nextRetestAt }) };
    });
  }

  /**
   * The batch each size's next unit comes from (first expiry first among those that sell now), none
   * where that unit is legacy stock; and when the next of them passes its retest day.
   */
  private async currentBatches(
    db: Knex.Transaction,
  ): Promise<{ current: Map<string, BatchSummary>; nextRetestAt?: number }> {
    const now = this.now();
    const rows = await sellableNow(db('batches'), now).select(
      'number',
      'sku',
      'units',
      'purity_hundredths',
      'tested_on',
      'retest_on',
      'sellable_until',
      'received_at',
      'legacy',
      'certificate_sha256',
    );
    const bySku = new Map<string, Array<Record<string, unknown>>>();
    let nextRetestAt: number | undefined;
    for (const row of rows) {
      bySku.set(row.sku, [...(bySku.get(row.sku) ?? []), row]);
      if (row.sellable_until !== null && (nextRetestAt === undefined || Number(row.sellable_until) < nextRetestAt))
        nextRetestAt = Number(row.sellable_until);
    }
    const current = new Map<string, BatchSummary>();
    for (const [sku, batches] of bySku) {
      const [first] = batches.map((row) => ({ ...shelfBatchOf(row), row })).sort(firstExpiryFirst);
      if (!first || first.row['legacy']) continue;
      current.set(sku, {
        number: first.number,
        purityHundredths: Number(first.row['purity_hundredths']),
        testedOn: String(first.row['tested_on']),
        hasCertificate: first.row['certificate_sha256'] != null,
      });
    }
    return { current, ...(nextRetestAt === undefined ? {} : { nextRetestAt }) };
  }

  /**
   * The inputs of the snapshot version, without reading the catalog itself: the revision, the
   * sold-out SKUs (brought up to date first where a retest day made a count stale) and when the next
   * batch passes its retest day.
   */
  async catalogState(): Promise<{ revision: string; soldOut: string[]; nextRetestAt?: number }> {
    const now = this.now();
    const rows = await this.db('stock')
      .whereRaw('on_hand - reserved <= 0')
      .orWhere('recount_at', '<=', now)
      .select('sku', 'on_hand', 'reserved', 'recount_at');
    const stale = rows.filter((row) => isStale(row.recount_at, now)).map((row) => row.sku as string);
    if (stale.length > 0) {
      await this.stock.takeOffStale(stale);
      return this.catalogState();
    }
    // The revision and the next retest day in one statement.
    const state = await this.db('meta')
      .where('key', CATALOG_REVISION)
      .first('value', sellableNow(this.db('batches'), now).min('sellable_until').as('next_retest_at'));
    const soldOut = rows.map((row) => row.sku as string);
    return {
      revision: state?.value ?? '',
      // Sorted here, not in SQL, so the order matches the snapshot's whatever the collation.
      soldOut: soldOut.sort(),
      ...(state?.next_retest_at == null ? {} : { nextRetestAt: Number(state.next_retest_at) }),
    };
  }

  /** The catalog's revision; `lock` reads the latest committed one and holds it until the transaction ends. */
  async revision(db: Knex | Knex.Transaction, { lock = false } = {}): Promise<string> {
    const query = db('meta').where('key', CATALOG_REVISION).first('value');
    const row = await (lock ? forUpdate(query, this.db) : query);
    return row?.value ?? '';
  }

  /**
   * When snapshot `version` was first rendered, recording `now` if no pod has rendered it since
   * the last change. A compare-and-set on the stored value, so pods that render a new version
   * at once agree on one time (the first write wins) and every pod serves the same bytes.
   */
  async firstRendered(version: string, now: number): Promise<number> {
    const stored = await this.publishedSnapshot();
    if (stored?.version === version) return stored.at;
    const value = `${version} ${now}`;
    if (stored) await this.db('meta').where({ key: PUBLISHED_SNAPSHOT, value: stored.value }).update({ value });
    else await this.db('meta').insert({ key: PUBLISHED_SNAPSHOT, value }).onConflict('key').ignore();
    const winner = await this.publishedSnapshot();
    // Only when the version moved on again in between does this render keep its own time.
    return winner?.version === version ? winner.at : now;
  }

  private async publishedSnapshot(): Promise<{ version: string; at: number; value: string } | undefined> {
    const row = await this.db('meta').where('key', PUBLISHED_SNAPSHOT).first('value');
    if (!row) return undefined;
    const [version, at] = (row.value as string).split(' ');
    return { version: version!, at: Number(at), value: row.value };
  }

  /**
   * Unit prices after each size's price breaks and stock on hand for normalised lines (one line
   * per SKU); any unknown SKU fails the whole quote.
   */
  async quote(lines: Line[]): Promise<PricedLine[]> {
    const read = () =>
      this.db('product_sizes as s')
        .join('products as p', 'p.id', 's.product_id')
        .leftJoin('stock as st', 'st.sku', 's.sku')
        .whereIn(
          's.sku',
          lines.map((line) => line.sku),
        )
        .select(
          's.sku',
          's.size',
          's.price_pence',
          's.price_breaks',
          'p.name',
          'p.vat_rate_basis_points',
          'st.on_hand',
          'st.recount_at',
        );
    let rows = await read();
    const stale = rows.filter((row) => isStale(row.recount_at, this.now())).map((row) => row.sku as string);
    if (stale.length > 0) {
      await this.stock.takeOffStale(stale);
      rows = await read();
    }
    const bySku = new Map(rows.map((row) => [row.sku as string, row]));
    const unknown = lines.filter((line) => !bySku.has(line.sku)).map((line) => line.sku);
    if (unknown.length > 0) throw unknownSkus(unknown);
    return lines.map((line) => {
      const row = bySku.get(line.sku)!;
      const onHand = row.on_hand === null ? undefined : Number(row.on_hand);
      return {
        ...line,
        unitPricePence: unitPriceAfterBreaks(Number(row.price_pence), line.quantity, breaksOfRow(row.price_breaks)),
        productName: row.name,
        size: row.size,
        vatRateBasisPoints: Number(row.vat_rate_basis_points),
        onHand,
      };
    });
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.db('products').first('id');
    return row === undefined;
  }

  /**
   * Upserts products, sizes and prices in one transaction, so an import applies whole or not
   * at all. Stock is set only for SKUs that have no stock row yet: re-importing a catalog never
   * overwrites live stock. Products missing from the file are left as they are.
   */
  async importCatalog(catalog: CatalogFile, onProgress?: ImportProgress): Promise<void> {
    await this.db.transaction(async (trx) => {
      await this.writeCatalog(trx, catalog, onProgress);
      await newCatalogRevision(trx);
    });
  }

  /** The import's writes, all but the new revision, in the caller's transaction. */
  async writeCatalog(trx: Knex.Transaction, catalog: CatalogFile, onProgress?: ImportProgress): Promise<void> {
    const total = catalog.products.length;
    for (let start = 0; start < total; start += IMPORT_BATCH_ROWS) {
      const batch = catalog.products.slice(start, start + IMPORT_BATCH_ROWS);
      await trx('products')
        .insert(
          batch.map((product, i) => ({
            id: product.id,
            name: product.name,
            description: product.description,
            vat_rate_basis_points: product.vatRateBasisPoints,
            position: start + i,
          })),
        )
        .onConflict('id')
        .merge(['name', 'description', 'vat_rate_basis_points', 'position']);
      await this.writeSpecifications(trx, batch);
      const sizes = batch.flatMap((product) =>
        product.sizes.map((size, position) => ({ product, size, position, sku: skuOf(product.id, size.size) })),
      );
      for (let from = 0; from < sizes.length; from += IMPORT_BATCH_ROWS) {
        const rows = sizes.slice(from, from + IMPORT_BATCH_ROWS);
        await trx('product_sizes')
          .insert(
            rows.map(({ product, size, position, sku }) => ({
              sku,
              product_id: product.id,
              size: size.size,
              price_pence: size.pricePence,
              price_breaks: storedBreaks(size.priceBreaks ?? []),
              position,
            })),
          )
          .onConflict('sku')
          .merge(['price_pence', 'position']);
        await this.writeBreaks(trx, rows);
        await this.startCounting(
          trx,
          rows.filter(({ size }) => size.stock !== undefined).map(({ sku, size }) => ({ sku, units: size.stock! })),
          // An import is recorded in the audit log after its writes: its movements name no staff action.
          { reason: 'import', reference: '' },
        );
      }
      onProgress?.(start + batch.length, total);
    }
  }

  /** The specifications of the products whose file entry gives them; the others keep theirs. */
  private async writeSpecifications(trx: Knex.Transaction, products: CatalogFile['products']): Promise<void> {
    for (const product of products) {
      if (product.specifications === undefined) continue;
      await trx('products')
        .where({ id: product.id })
        .update({ specifications: storedSpecifications(product.specifications) });
    }
  }

  /** The breaks of the sizes whose file entry gives them, one update per distinct list. */
  private async writeBreaks(trx: Knex.Transaction, rows: Array<{ sku: string; size: FileSize }>): Promise<void> {
    const skusOf = new Map<string, string[]>();
    for (const { sku, size } of rows) {
      if (size.priceBreaks === undefined) continue;
      const value = storedBreaks(size.priceBreaks);
      skusOf.set(value, [...(skusOf.get(value) ?? []), sku]);
    }
    for (const [value, skus] of skusOf) await trx('product_sizes').whereIn('sku', skus).update({ price_breaks: value });
  }

  /**
   * Counts the units of sizes that have no count yet (live stock is never overwritten). Their
   * units come without batch information: the size's legacy batch holds them, or what its sellable
   * batches do not already hold for a size that had batches while it was not counted.
   */
  async startCounting(
    trx: Knex.Transaction,
    sizes: Array<{ sku: string; units: number }>,
    cause: MovementCause,
  ): Promise<void> {
    if (sizes.length === 0) return;
    const skus = sizes.map((size) => size.sku);
    const counted = new Set<string>(await trx('stock').whereIn('sku', skus).pluck('sku'));
    const starting = sizes.filter((size) => !counted.has(size.sku));
    if (starting.length === 0) return;
    const batched = new Set<string>(
      await trx('batches')
        .whereIn(
          'sku',
          starting.map((size) => size.sku),
        )
        .distinct()
        .pluck('sku'),
    );
    // A size with batches starts from none and is counted afresh below, which records its movement.
    await trx('stock')
      .insert(starting.map(({ sku, units }) => ({ sku, on_hand: batched.has(sku) ? 0 : units, reserved: 0 })))
      .onConflict('sku')
      .ignore();
    const legacy = starting.filter((size) => !batched.has(size.sku) && size.units > 0);
    if (legacy.length > 0) {
      await trx('batches')
        .insert(legacy.map(({ sku, units }) => this.stock.legacyBatchRow(sku, units)))
        .onConflict('number')
        .ignore();
      await recordMovements(
        trx,
        legacy.map(({ sku, units }) => ({ sku, before: 0, after: units })),
        cause,
        this.stock.now(),
      );
    }
    for (const { sku, units } of starting.filter((size) => batched.has(size.sku))) {
      await this.stock.countAfresh(trx, sku, (await this.stock.lockCount(trx, sku))!, units, { exact: false, cause });
    }
  }
}

/** Marks the catalog changed, so every replica publishes a new products.json version. */
export async function newCatalogRevision(trx: Knex.Transaction): Promise<void> {
  await trx('meta').insert({ key: CATALOG_REVISION, value: randomUUID() }).onConflict('key').merge(['value']);
}
