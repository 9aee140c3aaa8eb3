/**
 * The published catalog, which the gateway completes with checkout's shipping rule into
 * `/products.json`. Its version is derived from the only things the catalog depends on: the
 * catalog revision (changed by every import and by every batch change that can change a size's
 * current batch), the set of sold-out stock-limited SKUs, and when the next batch passes its
 * retest day (which changes them with no write). Checking it costs two tiny queries and no writes
 * on the reservation path, every inventory pod computes the same version from the same data, and
 * the version changes whenever a reader would see a different catalog. Its `generatedAt` is when
 * the version was first rendered (kept in the store), so every pod answers the same catalog for one
 * version and gateways that ask different pods publish the same document.
 */
import { createHash } from 'node:crypto';
import type { InventoryStore } from '../stores/catalog';
import type { CatalogProduct } from './catalog';

export interface SnapshotOptions {
  merchantCode: string;
  now?: () => number;
}

export function snapshotVersion(revision: string, soldOut: readonly string[], nextRetestAt?: number): string {
  const hash = createHash('sha256').update(revision).update('\n').update(soldOut.join('\n'));
  // Absent for a catalog without dated batches, whose version stays what it was before batches.
  if (nextRetestAt !== undefined) hash.update(`\n${nextRetestAt}`);
  return hash.digest('base64url').slice(0, 22);
}

export interface CatalogSnapshot {
  version: string;
  notModified: boolean;
  /** Absent when the caller already holds this version. */
  catalog?: { generatedAt: string; currency: string; merchantCode: string; products: CatalogProduct[] };
}

export class CatalogPublisher {
  private readonly now: () => number;

  constructor(
    private readonly store: InventoryStore,
    private readonly options: SnapshotOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The current catalog, or just its version when the caller already holds it. */
  async snapshot(knownVersion: string): Promise<CatalogSnapshot> {
    if (knownVersion) {
      const { revision, soldOut, nextRetestAt } = await this.store.catalogState();
      const version = snapshotVersion(revision, soldOut, nextRetestAt);
      if (version === knownVersion) return { version, notModified: true };
    }
    // Version and catalog come from one consistent read, so a catalog is never labelled
    // with a version it does not match.
    const catalog = await this.store.catalog();
    const soldOut = catalog.products
      .flatMap((product) => product.sizes)
      .filter((size) => size.stockLimited && !size.inStock)
      .map((size) => size.sku)
      .sort();
    const version = snapshotVersion(catalog.revision, soldOut, catalog.nextRetestAt);
    const generatedAt = new Date(await this.store.firstRendered(version, this.now()));
    return {
      version,
      notModified: false,
      catalog: {
        generatedAt: generatedAt.toISOString(),
        currency: 'GBP',
        merchantCode: this.options.merchantCode,
        products: catalog.products,
      },
    };
  }
}
