/**
 * What the catalog pages show: the gateway's copy of the catalog (as /products.json publishes
 * it) with live stock from inventory, read once for requests that arrive together, and what
 * orders hold of it (held-stock.ts).
 */
import { coalesced } from '@storefront/coalesce';
import type { checkout, inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { CatalogCopy } from './catalog';
import { heldStockReader, yieldableUnits, type HeldStock } from './held-stock';

export interface ShopView {
  /** Changes whenever the catalog or the pricing policy does (the products.json ETag). */
  version: string;
  catalog: inventory.CatalogSnapshot;
  policy: checkout.GetPricingPolicyResponse;
  /** Available units of every stock-limited SKU. */
  stock: Record<string, number>;
  /** What orders hold of stock-limited SKUs, as last read. */
  held: HeldStock;
}

export type ShopReader = () => Promise<ShopView>;

export function shopReader(context: GatewayContext, catalogCopy: CatalogCopy): ShopReader {
  const readStock = coalesced(async () => (await context.clients.inventory.getStock({})).available);
  const readHeld = heldStockReader(
    () => context.clients.checkout.getHeldStock({ skus: [] }),
    context.config.heldStockCacheMs,
    context.logger,
  );
  return async () => {
    const [{ etag, catalog, policy }, stock, held] = await Promise.all([
      catalogCopy.current(),
      readStock(),
      readHeld(),
    ]);
    return { version: etag, catalog, policy, stock, held };
  };
}

/** Units left of a size, or undefined for a size whose stock is not limited. */
export function unitsLeft(size: inventory.ProductSize, stock: Record<string, number>): number | undefined {
  return size.stockLimited ? Math.max(0, stock[size.sku] ?? 0) : undefined;
}

/**
 * Whether a size can be ordered now: units left, or units unpaid orders hold, which an order takes as their holds yield
 * or pays for and waits.
 */
export function orderable(size: inventory.ProductSize, { stock, held }: Pick<ShopView, 'stock' | 'held'>): boolean {
  return unitsLeft(size, stock) !== 0 || yieldableUnits(held, size.sku) > 0;
}

/** "3 left", "Sold out", or nothing for unlimited stock. */
export function stockWords(left: number | undefined): string | undefined {
  if (left === undefined) return undefined;
  return left === 0 ? 'Sold out' : `${left} left`;
}

/** "3 left", "Sold out", "None free now: 3 held in other baskets, back by 14:05", or nothing for unlimited stock. */
export function sizeStockWords(left: number | undefined, held: string | undefined): string | undefined {
  if (!held) return stockWords(left);
  return left === 0 ? `None free now: ${held}` : `${stockWords(left)}; ${held}`;
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
