/** The catalog as /products.json shows it: GBP prices, stock flags and checkout's shipping rule. */
import type { checkout, inventory } from '@storefront/proto';
import { penceToPounds } from '../kit/money';

/** A product of inventory's catalog, as /products.json and the MCP tools show it. */
export function catalogProductView(product: inventory.Product) {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    sizes: product.sizes.map((size) => ({
      size: size.size,
      sku: size.sku,
      price: penceToPounds(size.pricePence),
      stockLimited: size.stockLimited,
      inStock: size.inStock,
    })),
  };
}

export type CatalogProductView = ReturnType<typeof catalogProductView>;

/** The /products.json document: inventory's catalog, with the shipping rule checkout prices orders by. */
export function catalogDocument(catalog: inventory.CatalogSnapshot, policy: checkout.GetPricingPolicyResponse) {
  return {
    generatedAt: catalog.generatedAt,
    currency: catalog.currency,
    merchantCode: catalog.merchantCode,
    shipping: {
      flatFee: penceToPounds(policy.shippingFeePence),
      freeOver: penceToPounds(policy.freeShippingThresholdPence),
    },
    products: catalog.products.map(catalogProductView),
  };
}
