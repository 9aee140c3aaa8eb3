/** The catalog as the shop sells from it: products, their sizes, prices and whether they are in stock. */
import type { Line } from './lines';

export interface CatalogSize {
  size: string;
  sku: string;
  pricePence: number;
  stockLimited: boolean;
  /** Not stock-limited, or at least one unit available. */
  inStock: boolean;
}

export interface CatalogProduct {
  id: string;
  name: string;
  description: string;
  sizes: CatalogSize[];
}

export interface Catalog {
  /** Changes on every import; with the sold-out SKUs it versions the published snapshot. */
  revision: string;
  products: CatalogProduct[];
}

export interface PricedLine extends Line {
  unitPricePence: number;
  productName: string;
  size: string;
  /** Units on hand (reserved ones included) of a stock-limited SKU; undefined when not limited. */
  onHand?: number;
}
