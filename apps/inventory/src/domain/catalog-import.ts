/**
 * A catalog import in two steps: the preview says what a catalog file would change (products and sizes added, ones the
 * file leaves out but the import keeps, price, price break, name and description changes, unlimited sizes the file
 * starts counting)
 * without writing, and carries a digest of the file and of the catalog it was compared with. Applying takes the file
 * again with that digest, so what is written is exactly what was previewed: every change to the catalog moves its
 * revision, and a digest from before the change no longer matches (409 `catalog_changed`).
 */
import { createHash } from 'node:crypto';
import type { StaffIdentity } from '@storefront/caller-token';
import type { Knex } from '@storefront/db';
import { conflict, invalidArgument } from '@storefront/errors';
import { recordStaffAction } from '@storefront/staff-audit';
import type { PriceBreak } from '@storefront/formats';
import { parseCatalogFile, skuOf, type CatalogFile } from '../catalog-file';
import { breaksOfRow, storedBreaks } from './price-breaks';
import { newCatalogRevision, type ImportProgress, type InventoryStore } from '../stores/catalog';

/** Well above a catalog of thousands of products, well below a gRPC message. */
export const MAX_CATALOG_TEXT_BYTES = 1024 * 1024;

export interface ImportAddition {
  productId: string;
  name: string;
  /** Absent on a product's own line. */
  size?: string;
  sku?: string;
  pricePence?: number;
  stock?: number;
}

export interface ImportPreview {
  digest: string;
  productCount: number;
  sizeCount: number;
  addedProducts: ImportAddition[];
  addedSizes: ImportAddition[];
  keptProducts: string[];
  keptSkus: string[];
  priceChanges: Array<{ sku: string; beforePence: number; afterPence: number }>;
  nameChanges: Array<{ productId: string; before: string; after: string }>;
  descriptionChanges: string[];
  /** Unlimited sizes the file gives a stock: counted from now on. */
  countingStarted: ImportAddition[];
  /** Sizes in the catalog whose breaks the file replaces with different ones. */
  priceBreakChanges: Array<{ sku: string; before: PriceBreak[]; after: PriceBreak[] }>;
}

/** A catalog file's text, checked: JSON first, then every rule of the file format. */
export function parseCatalogText(text: string): CatalogFile {
  if (typeof text !== 'string' || text.trim() === '')
    throw invalidArgument('catalog_text must be the catalog file’s JSON', 'invalid_catalog');
  if (Buffer.byteLength(text, 'utf8') > MAX_CATALOG_TEXT_BYTES) {
    throw invalidArgument(`catalog_text must be at most ${MAX_CATALOG_TEXT_BYTES} bytes`, 'catalog_too_large');
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`catalog_text is not valid JSON (${(error as Error).message})`, 'invalid_catalog');
  }
  try {
    return parseCatalogFile(input);
  } catch (error) {
    throw invalidArgument(`the catalog file has problems: ${(error as Error).message}`, 'invalid_catalog');
  }
}

interface StoredCatalog {
  products: Map<string, { name: string; description: string }>;
  /** SKU -> its product, price, price breaks and whether its units are counted. */
  sizes: Map<string, { productId: string; pricePence: number; priceBreaks: PriceBreak[]; counted: boolean }>;
}

export function catalogDigest(revision: string, catalog: CatalogFile): string {
  return createHash('sha256').update(revision).update('\n').update(JSON.stringify(catalog)).digest('base64url');
}

/** What importing `file` over `stored` changes; pure. */
export function diffCatalog(stored: StoredCatalog, file: CatalogFile): Omit<ImportPreview, 'digest'> {
  const preview: Omit<ImportPreview, 'digest'> = {
    productCount: file.products.length,
    sizeCount: 0,
    addedProducts: [],
    addedSizes: [],
    keptProducts: [],
    keptSkus: [],
    priceChanges: [],
    nameChanges: [],
    descriptionChanges: [],
    countingStarted: [],
    priceBreakChanges: [],
  };
  const inFile = new Set<string>();
  for (const product of file.products) {
    inFile.add(product.id);
    const existing = stored.products.get(product.id);
    if (!existing) preview.addedProducts.push({ productId: product.id, name: product.name });
    else {
      if (existing.name !== product.name)
        preview.nameChanges.push({ productId: product.id, before: existing.name, after: product.name });
      if (existing.description !== product.description) preview.descriptionChanges.push(product.id);
    }
    for (const size of product.sizes) {
      preview.sizeCount += 1;
      const sku = skuOf(product.id, size.size);
      inFile.add(sku);
      const storedSize = stored.sizes.get(sku);
      const addition = {
        productId: product.id,
        name: product.name,
        size: size.size,
        sku,
        pricePence: size.pricePence,
        ...(size.stock === undefined ? {} : { stock: size.stock }),
      };
      if (!storedSize) {
        preview.addedSizes.push(addition);
        continue;
      }
      if (storedSize.pricePence !== size.pricePence)
        preview.priceChanges.push({ sku, beforePence: storedSize.pricePence, afterPence: size.pricePence });
      // A size without breaks in the file keeps its own (decision 1303).
      if (size.priceBreaks && storedBreaks(size.priceBreaks) !== storedBreaks(storedSize.priceBreaks))
        preview.priceBreakChanges.push({ sku, before: storedSize.priceBreaks, after: size.priceBreaks });
      // Stock is written only where there is none: an unlimited size starts counting, a counted one keeps its count.
      if (!storedSize.counted && size.stock !== undefined) preview.countingStarted.push(addition);
    }
  }
  for (const id of stored.products.keys()) if (!inFile.has(id)) preview.keptProducts.push(id);
  // The SKUs of kept products go with them; only sizes the file drops from a product it lists are named.
  for (const [sku, { productId }] of stored.sizes)
    if (!inFile.has(sku) && inFile.has(productId)) preview.keptSkus.push(sku);
  return preview;
}

/** Entries of one list the audit row names; a large import would not fit the row's column. */
export const AUDITED_ENTRIES_MAX = 50;

/** The first AUDITED_ENTRIES_MAX entries, then how many more there were. */
function firstOf<T>(entries: T[]): Array<T | string> {
  if (entries.length <= AUDITED_ENTRIES_MAX) return entries;
  return [...entries.slice(0, AUDITED_ENTRIES_MAX), `and ${entries.length - AUDITED_ENTRIES_MAX} more`];
}

export class CatalogImporter {
  constructor(
    private readonly store: InventoryStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** What importing `catalog` would change now, and the digest that applies exactly that. */
  preview(catalog: CatalogFile): Promise<ImportPreview> {
    return this.store.db.transaction((trx) => this.compare(trx, catalog));
  }

  /**
   * Imports `catalog` if the catalog is still the one its preview (`digest`) was made against,
   * recording the import in the staff audit log in the same transaction.
   */
  async apply(
    catalog: CatalogFile,
    digest: string,
    staff: StaffIdentity,
    onProgress?: ImportProgress,
  ): Promise<ImportPreview> {
    if (typeof digest !== 'string' || digest === '')
      throw invalidArgument('digest is required: preview the import first and apply that preview', 'invalid_digest');
    return this.store.db.transaction(async (trx) => {
      const applied = await this.compare(trx, catalog);
      await this.store.writeCatalog(trx, catalog, onProgress);
      // Read last and locked, as every other change takes the revision last: a change committed
      // since the preview, or one still running, shows here and undoes this import.
      const current = await this.store.revision(trx, { lock: true });
      if (catalogDigest(current, catalog) !== digest || applied.digest !== digest) {
        throw conflict(
          'catalog_changed',
          'The catalog changed since this preview, or this is not the previewed file; preview the import again',
        );
      }
      await newCatalogRevision(trx);
      const revision = await this.store.revision(trx);
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'catalog_imported',
          subject: 'catalog',
          before: { revision: current },
          after: {
            revision,
            products: applied.productCount,
            sizes: applied.sizeCount,
            addedProducts: firstOf(applied.addedProducts.map((product) => product.productId)),
            addedSkus: firstOf(applied.addedSizes.map((size) => size.sku)),
            priceChanges: firstOf(applied.priceChanges),
            nameChanges: firstOf(applied.nameChanges),
            descriptionChanges: firstOf(applied.descriptionChanges),
            countingStarted: firstOf(applied.countingStarted.map((size) => size.sku)),
            priceBreakChanges: firstOf(applied.priceBreakChanges),
          },
        },
        this.now(),
      );
      return applied;
    });
  }

  private async compare(trx: Knex.Transaction, catalog: CatalogFile): Promise<ImportPreview> {
    const revision = await this.store.revision(trx);
    const products = await trx('products').select('id', 'name', 'description');
    const sizes = await trx('product_sizes as s')
      .leftJoin('stock as st', 'st.sku', 's.sku')
      .select('s.sku', 's.product_id', 's.price_pence', 's.price_breaks', 'st.on_hand');
    const stored: StoredCatalog = {
      products: new Map(
        products.map((row) => [row.id as string, { name: row.name as string, description: row.description as string }]),
      ),
      sizes: new Map(
        sizes.map((row) => [
          row.sku as string,
          {
            productId: row.product_id as string,
            pricePence: Number(row.price_pence),
            priceBreaks: breaksOfRow(row.price_breaks),
            counted: row.on_hand !== null,
          },
        ]),
      ),
    };
    return { digest: catalogDigest(revision, catalog), ...diffCatalog(stored, catalog) };
  }
}
