/**
 * What the catalog pages show: the gateway's copy of the catalog (as /products.json publishes
 * it) with live stock from inventory, read once for requests that arrive together.
 */
import { coalesced } from '@storefront/coalesce';
import type { checkout, inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { CatalogCopy } from './catalog';

export interface ShopView {
  /** Changes whenever the catalog or the pricing policy does (the products.json ETag). */
  version: string;
  catalog: inventory.CatalogSnapshot;
  policy: checkout.GetPricingPolicyResponse;
  /** Available units of every stock-limited SKU. */
  stock: Record<string, number>;
}

export type ShopReader = () => Promise<ShopView>;

export function shopReader({ clients }: GatewayContext, catalogCopy: CatalogCopy): ShopReader {
  const readStock = coalesced(async () => (await clients.inventory.getStock({})).available);
  return async () => {
    const [{ etag, catalog, policy }, stock] = await Promise.all([catalogCopy.current(), readStock()]);
    return { version: etag, catalog, policy, stock };
  };
}

/** Units left of a size, or undefined for a size whose stock is not limited. */
export function unitsLeft(size: inventory.ProductSize, stock: Record<string, number>): number | undefined {
  return size.stockLimited ? Math.max(0, stock[size.sku] ?? 0) : undefined;
}

/** "3 left", "Sold out", or nothing for unlimited stock. */
export function stockWords(left: number | undefined): string | undefined {
  if (left === undefined) return undefined;
  return left === 0 ? 'Sold out' : `${left} left`;
}

/** The product and size a SKU belongs to. */
export function findSku(
  catalog: inventory.CatalogSnapshot,
  sku: string,
): { product: inventory.Product; size: inventory.ProductSize } | undefined {
  for (const product of catalog.products) {
    const size = product.sizes.find((candidate) => candidate.sku === sku);
    if (size) return { product, size };
  }
  return undefined;
}
