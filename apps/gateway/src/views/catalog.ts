/** A product of inventory's catalog as /products.json shows it: GBP prices and stock flags. */
import type { inventory } from '@storefront/proto';
import { penceToPounds } from './money';

export function catalogProductView(product: inventory.Product) {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    sizes: product.sizes.map((size) => ({ size: size.size, sku: size.sku, price: penceToPounds(size.pricePence), stockLimited: size.stockLimited, inStock: size.inStock })),
  };
}

export type CatalogProductView = ReturnType<typeof catalogProductView>;
