/**
 * The published catalog (`/products.json`). Its version is derived from the only two things
 * the document depends on: the catalog revision (changed by every import) and the set of
 * sold-out stock-limited SKUs. Checking it costs two tiny queries and no writes on the
 * reservation path, every inventory pod computes the same version from the same data, and the
 * version changes exactly when a reader would see a different document. Its `generatedAt` is
 * when the version was first rendered (kept in the store), so every pod serves the same bytes for
 * one version and gateways that ask different pods publish the same document.
 */
import { createHash } from 'node:crypto';
import type { InventoryStore } from '../stores/catalog';
import type { Catalog } from './catalog';

/** Mirrors checkout's shipping rule (apps/checkout/src/domain/pricing.ts), in GBP as the document shows it. */
export const SHIPPING = { flatFee: 4.95, freeOver: 75 } as const;

export interface SnapshotOptions {
  merchantCode: string;
  now?: () => number;
}

export interface Snapshot {
  version: string;
  notModified: boolean;
  /** The serialised document; empty when not modified. */
  document: string;
}

export function snapshotVersion(revision: string, soldOut: readonly string[]): string {
  return createHash('sha256').update(revision).update('\n').update(soldOut.join('\n')).digest('base64url').slice(0, 22);
}

export function renderCatalogDocument(catalog: Catalog, generatedAt: Date, merchantCode: string): string {
  return JSON.stringify({
    generatedAt: generatedAt.toISOString(),
    currency: 'GBP',
    merchantCode,
    shipping: SHIPPING,
    products: catalog.products.map((product) => ({
      id: product.id,
      name: product.name,
      description: product.description,
      sizes: product.sizes.map((size) => ({
        size: size.size,
        sku: size.sku,
        price: size.pricePence / 100,
        stockLimited: size.stockLimited,
        inStock: size.inStock,
      })),
    })),
  });
}

export class CatalogPublisher {
  private readonly now: () => number;

  constructor(
    private readonly store: InventoryStore,
    private readonly options: SnapshotOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The current document, or just its version when the caller already holds it. */
  async snapshot(knownVersion: string): Promise<Snapshot> {
    if (knownVersion) {
      const { revision, soldOut } = await this.store.catalogState();
      const version = snapshotVersion(revision, soldOut);
      if (version === knownVersion) return { version, notModified: true, document: '' };
    }
    // Version and document come from one consistent read, so a document is never labelled
    // with a version it does not match.
    const catalog = await this.store.catalog();
    const soldOut = catalog.products
      .flatMap((product) => product.sizes)
      .filter((size) => size.stockLimited && !size.inStock)
      .map((size) => size.sku)
      .sort();
    const version = snapshotVersion(catalog.revision, soldOut);
    const generatedAt = new Date(await this.store.firstRendered(version, this.now()));
    return { version, notModified: false, document: renderCatalogDocument(catalog, generatedAt, this.options.merchantCode) };
  }
}
